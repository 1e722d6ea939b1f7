// Scheduler: jobs (add, edit, run now, remove) and the runs of the chosen job, newest first.
import { useEffect, useState } from 'preact/hooks';
import { JobForm, type JobEntry } from '../components/job-form';
import { ErrorNotice, Loading, Notice, PageTitle, Pager, Section } from '../components/ui';
import { formatDuration, formatTime } from '../lib/format';
import { subscribeEvents } from '../lib/live-events';
import { call } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { TableExport } from '../components/table-export';

/** Jobs per page (cron.list allows up to 500). */
const PAGE_SIZE = 50;
/** Runs shown per job. */
const RUNS_LIMIT = 50;

function schedule(job: JobEntry): string {
  if (job.scheduleKind === 'cron') return `${job.expr ?? ''} (${job.tz})`;
  if (job.scheduleKind === 'interval') return `every ${formatDuration(job.everyMs)}`;
  return `once at ${job.at ?? '—'}`;
}

function JobRuns({ job }: { job: JobEntry }) {
  const runs = useAsync(
    () => call('cron.runs', { jobName: job.name, ownerId: job.ownerId, limit: RUNS_LIMIT }),
    [job.id, job.lastRunAtMs],
  );
  return (
    <Section
      title={`Runs of ${job.name}`}
      actions={
        <button type="button" onClick={runs.reload}>
          Refresh
        </button>
      }
    >
      <Loading isLoading={runs.isLoading} />
      <ErrorNotice error={runs.error} />
      {runs.data?.runs.length === 0 ? <p class="muted">No runs yet.</p> : null}
      <ul>
        {(runs.data?.runs ?? []).map((run) => (
          <li key={run.ts}>
            <span class={`badge ${run.status === 'ok' ? 'ok' : run.status === 'error' ? 'bad' : 'warn'}`}>
              {run.status}
            </span>{' '}
            {formatTime(run.ts)}, {formatDuration(run.durationMs)} {run.summary ?? run.error ?? ''}
          </li>
        ))}
      </ul>
    </Section>
  );
}

export default function SchedulerPage() {
  // Cursors of the pages shown so far (the last is the current page); cron.list pages by job name.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const jobs = useAsync(
    () =>
      call('cron.list', {
        limit: PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    [cursor],
  );
  const { reload } = jobs;
  // A fired job's last run and next fire change when it completes, wherever it was started.
  useEffect(() => subscribeEvents((event) => event.name === 'scheduler:job_completed' && reload()), [reload]);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [isAdding, setAdding] = useState(false);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const saved = (text: string) => {
    setNote(text);
    setEditing(undefined);
    setAdding(false);
    jobs.reload();
  };
  async function act(run: () => Promise<string>) {
    setError(undefined);
    try {
      saved(await run());
    } catch (failure) {
      setError(failure);
    }
  }
  const list = jobs.data?.jobs ?? [];
  const selectedJob = list.find((job) => job.id === selected);
  return (
    <>
      <PageTitle>Scheduler</PageTitle>
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <ErrorNotice error={error} />
      <Section
        title="New job"
        actions={
          <button type="button" aria-expanded={isAdding} onClick={() => setAdding(!isAdding)}>
            {isAdding ? 'Close' : 'New job'}
          </button>
        }
      >
        {isAdding ? <JobForm onSaved={saved} /> : <p class="muted">Jobs send a message to an agent on a schedule.</p>}
      </Section>
      <Section title="Jobs">
        <Loading isLoading={jobs.isLoading && jobs.data === undefined} />
        <ErrorNotice error={jobs.error} />
        {jobs.data !== undefined && list.length === 0 ? <p class="muted">No jobs.</p> : null}
        <TableExport name="jobs">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Owner</th>
                <th scope="col">Schedule</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((job) => (
                <tr key={job.id}>
                  <td data-label="Name">
                    {job.name} {job.enabled ? null : <span class="badge warn">disabled</span>}
                  </td>
                  <td data-label="Owner">{job.ownerId}</td>
                  <td data-label="Schedule">{schedule(job)}</td>
                  <td data-label="Next run">{formatTime(job.nextRunAtMs)}</td>
                  <td data-label="Last run">
                    {formatTime(job.lastRunAtMs)}
                    {job.lastError === undefined ? null : <span class="badge bad">{job.lastError}</span>}
                  </td>
                  <td data-label="Actions">
                    <div class="actions">
                      <button
                        type="button"
                        onClick={() =>
                          void act(
                            async () => (
                              await call('cron.run', { name: job.name, ownerId: job.ownerId, mode: 'force' }),
                              `${job.name} fired.`
                            ),
                          )
                        }
                      >
                        Run now
                      </button>
                      <button
                        type="button"
                        onClick={() => setEditing(editing === job.id ? undefined : job.id)}
                        aria-expanded={editing === job.id}
                      >
                        Edit
                      </button>
                      <button type="button" onClick={() => setSelected(job.id)}>
                        Runs
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() =>
                          void act(async () => {
                            if (!confirm(`Remove job ${job.name} and its runs?`)) return 'Nothing changed.';
                            await call('cron.remove', { name: job.name, ownerId: job.ownerId });
                            return `${job.name} removed.`;
                          })
                        }
                      >
                        Remove
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
        <Pager
          page={cursors.length - 1}
          hasNext={jobs.data?.nextCursor != null}
          onPage={(next) => {
            if (next < cursors.length - 1) setCursors(cursors.slice(0, -1));
            else if (jobs.data?.nextCursor != null) setCursors([...cursors, jobs.data.nextCursor]);
          }}
        />
        {list
          .filter((job) => job.id === editing)
          .map((job) => (
            <JobForm key={job.id} job={job} onSaved={saved} onCancel={() => setEditing(undefined)} />
          ))}
      </Section>
      {selectedJob === undefined ? null : <JobRuns job={selectedJob} />}
    </>
  );
}
