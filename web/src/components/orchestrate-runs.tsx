// A session's orchestrate runs: state, exit and the lease's decisions per tool, with Kill and Revoke while one runs.
import { useState } from 'preact/hooks';
import { formatTime } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, Notice, Section } from './ui';
import { TableExport } from './table-export';

type IncidentReport = Exclude<ResultOf<'obs.explain'>, { marker: 'session_not_found' }>;
type OrchestrateEntry = NonNullable<IncidentReport['orchestrate']>[number];
type Entry = OrchestrateEntry;

function decisionsText(entry: Entry | undefined): string {
  if (entry === undefined || entry.toolCalls.length === 0) return '—';
  return entry.toolCalls.map((tool) => `${tool.tool} ${tool.decision} ×${tool.count}`).join(', ');
}

/** `entries`: the session's incident report's orchestrate block (ended runs); running ones come from run.list. */
export function OrchestrateRuns({
  sessionKey,
  entries,
  onChange,
}: {
  sessionKey: string;
  entries: readonly Entry[];
  onChange: () => void;
}) {
  const runs = useAsync(() => call('run.list', { kind: 'orchestrate', limit: 500 }), [sessionKey]);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const mine = (runs.data?.runs ?? []).filter((run) => run.sessionKey === sessionKey);
  if (mine.length === 0 && entries.length === 0) return null;
  const byRun = new Map(entries.map((entry) => [entry.runId, entry]));

  async function stop(method: 'run.kill' | 'lease.revoke', runId: string) {
    setActionError(undefined);
    try {
      const result = await call(method, { runId });
      setMessage(`${method === 'run.kill' ? 'Killed' : 'Revoked'} ${runId}: ${result.status}.`);
      runs.reload();
      onChange();
    } catch (error) {
      setActionError(error);
    }
  }

  return (
    <Section title="Orchestrate runs">
      {message === undefined ? null : <Notice tone="ok">{message}</Notice>}
      <ErrorNotice error={actionError ?? runs.error} />
      <TableExport name="orchestrate-runs">
        <table class="stacked">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Exit</th>
              <th scope="col">Decisions</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {mine.map((run) => {
              const entry = byRun.get(run.runId);
              return (
                <tr key={run.runId}>
                  <td data-label="Run">
                    <code>{run.runId}</code>
                  </td>
                  <td data-label="Status">{run.status}</td>
                  <td data-label="Started">{formatTime(run.startedAt)}</td>
                  <td data-label="Exit">
                    {entry === undefined
                      ? '—'
                      : `${entry.exitCode}${entry.failureClass === undefined ? '' : ` (${entry.failureClass})`}`}
                  </td>
                  <td data-label="Decisions">{decisionsText(entry)}</td>
                  <td data-label="Actions">
                    {run.status === 'running' ? (
                      <div class="actions">
                        <button type="button" class="danger" onClick={() => void stop('run.kill', run.runId)}>
                          Kill
                        </button>
                        <button type="button" onClick={() => void stop('lease.revoke', run.runId)}>
                          Revoke
                        </button>
                      </div>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableExport>
    </Section>
  );
}
