// Skills: the loaded skills, the learned procedures by state with their evidence, reload and reflect now, and archive.
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNotice, JsonDetails, KeyValues, Loading, Notice, PageTitle, Section } from '../components/ui';
import { formatTime } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { TableExport } from '../components/table-export';

type ProcedureState = ResultOf<'skills.learned.list'>['procedures'][number]['state'];
type ReflectFunnel = ResultOf<'skills.reflect'>['funnels'][number];

const STATES: readonly ProcedureState[] = ['candidate', 'active', 'stale', 'archived'];
const STATE_BADGE: Record<ProcedureState, string> = { candidate: 'warn', active: 'ok', stale: 'bad', archived: '' };

function funnelText(funnel: ReflectFunnel): string {
  return (
    `${funnel.agentId}: ${funnel.admissionOutcome} — ${funnel.sourceTrajectoryCount} source turns ` +
    `(${funnel.totalSourceChars} chars), ${funnel.synthesized} synthesized, ${funnel.validated} validated, ` +
    `${funnel.admitted} admitted, largest corroboration ${funnel.maxClusterCardinality}, ` +
    `${funnel.untrustedDrops} untrusted dropped.`
  );
}

function ProcedureDetail({ id }: { id: string }) {
  const detail = useAsync(() => call('skills.learned.get', { id }), [id]);
  if (detail.error !== undefined) return <ErrorNotice error={detail.error} />;
  const procedure = detail.data;
  if (procedure === undefined) return <Loading isLoading />;
  return (
    <div class="stack">
      <KeyValues
        rows={[
          ['Tools', procedure.tools.join(', ') || '—'],
          ['Corroboration', `${procedure.cardinality} sessions and senders`],
          ['Synthesis', procedure.synthesisAbstained ? 'deterministic (small model tier)' : 'by the agent’s model'],
          ['Source turns', procedure.sourceTraceIds.length],
        ]}
      />
      <pre>{procedure.body}</pre>
      <JsonDetails summary={`Uses (${procedure.uses.length})`} value={procedure.uses} />
    </div>
  );
}

export default function SkillsPage() {
  const [state, setState] = useState<ProcedureState | ''>('');
  const skills = useAsync(() => call('skills.list', {}), []);
  const learned = useAsync(() => call('skills.learned.list', state === '' ? {} : { state }), [state]);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);

  async function act(action: () => Promise<string>) {
    setError(undefined);
    setNotice(undefined);
    try {
      setNotice(await action());
      skills.reload();
      learned.reload();
    } catch (failure) {
      setError(failure);
    }
  }
  const reload = () =>
    act(async () => {
      const result = await call('skills.reload');
      const rejected = result.rejected.map((entry) => `${entry.skill} (${entry.reason})`).join('; ');
      return `Loaded ${result.loaded} skill(s)${rejected === '' ? '.' : `; rejected ${rejected}.`}`;
    });
  const reflect = () =>
    act(async () => {
      const { funnels } = await call('skills.reflect', {});
      return funnels.length === 0 ? 'No agent has finished turns to reflect on.' : funnels.map(funnelText).join(' ');
    });
  const archive = (id: string, name: string) =>
    act(async () => {
      await call('skills.learned.archive', { id });
      return `Archived ${name}.`;
    });

  const loaded = (skills.data?.skills ?? []).filter((skill) => skill.source === 'dir');
  const procedures = learned.data?.procedures ?? [];
  return (
    <>
      <PageTitle>Skills</PageTitle>
      {notice === undefined ? null : <Notice tone="ok">{notice}</Notice>}
      <ErrorNotice error={error} />
      <Section
        title="Loaded skills"
        actions={
          <button type="button" onClick={() => void reload()}>
            Reload skills
          </button>
        }
      >
        <Loading isLoading={skills.isLoading && skills.data === undefined} />
        <ErrorNotice error={skills.error} />
        {skills.data !== undefined && loaded.length === 0 ? (
          <p class="muted">No skills are loaded: add folders with a SKILL.md under the skills directory.</p>
        ) : null}
        <TableExport name="skills">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col">Allowed tools</th>
                <th scope="col">Files</th>
              </tr>
            </thead>
            <tbody>
              {loaded.map((skill) => (
                <tr key={skill.name}>
                  <td data-label="Name">
                    <code>{skill.name}</code>
                  </td>
                  <td data-label="Description">{skill.description}</td>
                  <td data-label="Allowed tools">{skill.allowedTools?.join(', ') ?? 'any'}</td>
                  <td data-label="Files">{skill.files.length === 0 ? '—' : skill.files.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      </Section>
      <Section
        title="Learned procedures"
        actions={
          <>
            <label for="learned-state">State</label>
            <select
              id="learned-state"
              value={state}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setState(STATES.find((entry) => entry === value) ?? '');
              }}
            >
              <option value="">Every state</option>
              {STATES.map((entry) => (
                <option key={entry} value={entry}>
                  {entry}
                </option>
              ))}
            </select>
            <button type="button" onClick={() => void reflect()}>
              Reflect now
            </button>
          </>
        }
      >
        <Loading isLoading={learned.isLoading && learned.data === undefined} />
        <ErrorNotice error={learned.error} />
        {learned.data !== undefined && procedures.length === 0 ? (
          <p class="muted">
            No learned procedures yet: they are reflected from successful turns that two or more sessions repeated.
          </p>
        ) : null}
        <TableExport name="learned-skills">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Agent</th>
                <th scope="col">State</th>
                <th scope="col">Uses (ok / failed)</th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {procedures.map((procedure) => (
                <Fragment key={procedure.id}>
                  <tr>
                    <td data-label="Name">
                      <code>{procedure.name}</code>
                      <div class="muted">{procedure.description}</div>
                    </td>
                    <td data-label="Agent">{procedure.agentId}</td>
                    <td data-label="State">
                      <span class={`badge ${STATE_BADGE[procedure.state]}`}>{procedure.state}</span>
                    </td>
                    <td data-label="Uses (ok / failed)">
                      {procedure.successUses} / {procedure.failureUses}
                    </td>
                    <td data-label="Updated">{formatTime(procedure.updatedAt)}</td>
                    <td data-label="Actions">
                      <div class="row">
                        <button
                          type="button"
                          aria-expanded={open === procedure.id}
                          onClick={() => setOpen(open === procedure.id ? undefined : procedure.id)}
                        >
                          Evidence of {procedure.name}
                        </button>
                        {procedure.state === 'archived' ? null : (
                          <button type="button" onClick={() => void archive(procedure.id, procedure.name)}>
                            Archive {procedure.name}
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                  {open === procedure.id ? (
                    <tr>
                      <td colSpan={6}>
                        <ProcedureDetail id={procedure.id} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </TableExport>
      </Section>
    </>
  );
}
