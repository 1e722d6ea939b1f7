// Graphs: stored graph definitions (run with vars, delete), recent runs (cancel while running) and one run's DAG
// with its nodes' live states; the lists follow graph events live.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { GraphRunDetail, STATE_BADGE } from '../components/graph-run-detail';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Section } from '../components/ui';
import { formatTime } from '../lib/format';
import { isRecord } from '../lib/is-record';
import { subscribeEvents } from '../lib/live-events';
import { call } from '../lib/rpc';
import { navigate, pathWith, route } from '../lib/router';
import { useAsync } from '../lib/use-async';
import { TableExport } from '../components/table-export';

/** How many recent runs the page lists. */
const LISTED_RUNS = 50;

/** The vars field as an object, or the reason it is not one. */
function parseVars(text: string): { vars: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { vars: {} };
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? { vars: value } : { error: 'Vars must be a JSON object.' };
  } catch (failure) {
    return { error: `Vars are not valid JSON: ${failure instanceof Error ? failure.message : String(failure)}` };
  }
}

export default function GraphsPage() {
  const graphs = useAsync(() => call('graph.list'), []);
  const runs = useAsync(() => call('graph.runs', { limit: LISTED_RUNS }), []);
  const selected = route.value.query.get('run') ?? undefined;
  const [varsText, setVarsText] = useState<Record<string, string>>({});
  const [varsError, setVarsError] = useState<Record<string, string>>({});
  const [note, setNote] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const reloadRuns = runs.reload;
  const onRunChanged = useCallback(() => reloadRuns(), [reloadRuns]);
  useEffect(() => subscribeEvents((event) => event.name.startsWith('graph:') && reloadRuns()), [reloadRuns]);

  const select = (runId: string) => navigate(pathWith('graphs', { run: runId }));

  async function run(name: string) {
    setError(undefined);
    setNote(undefined);
    const parsed = parseVars(varsText[name] ?? '');
    if ('error' in parsed) {
      setVarsError((current) => ({ ...current, [name]: parsed.error }));
      return;
    }
    setVarsError((current) => ({ ...current, [name]: '' }));
    try {
      const { runId } = await call('graph.run', { name, vars: parsed.vars });
      setNote(`Started ${name}: run ${runId}.`);
      reloadRuns();
      select(runId);
    } catch (failure) {
      setError(failure);
    }
  }

  async function remove(name: string) {
    setError(undefined);
    setNote(undefined);
    try {
      const result = await call('graph.delete', { name });
      setNote(result.deleted ? `Deleted ${name}.` : `${name} was already gone.`);
      graphs.reload();
    } catch (failure) {
      setError(failure);
    }
  }

  async function cancel(runId: string) {
    setError(undefined);
    setNote(undefined);
    try {
      const result = await call('graph.cancel', { runId });
      setNote(`Run ${runId} is ${result.state}.`);
      reloadRuns();
    } catch (failure) {
      setError(failure);
    }
  }

  const definitions = graphs.data?.graphs ?? [];
  const runList = runs.data?.runs ?? [];
  return (
    <>
      <PageTitle>Graphs</PageTitle>
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <ErrorNotice error={error} />
      <Section title="Definitions">
        <Loading isLoading={graphs.isLoading && graphs.data === undefined} />
        <ErrorNotice error={graphs.error} />
        {graphs.data !== undefined && definitions.length === 0 ? (
          <p class="muted">No graphs are defined yet (graph.define, or a model's pipeline_define).</p>
        ) : null}
        <ul class="stack" style={{ listStyle: 'none', padding: 0 }}>
          {definitions.map((graph) => (
            <li key={graph.name} class="card" aria-label={`Graph ${graph.name}`}>
              <p>
                <strong>{graph.name}</strong> <span class="muted">{graph.nodes} node(s)</span>
              </p>
              {graph.description === undefined ? null : <p class="muted">{graph.description}</p>}
              <Field
                id={`graph-vars-${graph.name}`}
                label={`Vars for ${graph.name}`}
                hint="A JSON object; declared vars left out take their defaults."
                error={varsError[graph.name] || undefined}
              >
                {(props) => (
                  <textarea
                    {...props}
                    rows={2}
                    spellcheck={false}
                    value={varsText[graph.name] ?? ''}
                    onInput={(event) => {
                      const text = event.currentTarget.value;
                      setVarsText((current) => ({ ...current, [graph.name]: text }));
                    }}
                  />
                )}
              </Field>
              <div class="row">
                <button type="button" class="primary" onClick={() => void run(graph.name)}>
                  Run {graph.name}
                </button>
                <button type="button" class="danger" onClick={() => void remove(graph.name)}>
                  Delete {graph.name}
                </button>
              </div>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Recent runs">
        <ErrorNotice error={runs.error} />
        {runs.data !== undefined && runList.length === 0 ? <p class="muted">No runs yet.</p> : null}
        <TableExport name="graph-runs">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Graph</th>
                <th scope="col">State</th>
                <th scope="col">Started</th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {runList.map((item) => (
                <tr key={item.runId} aria-selected={item.runId === selected}>
                  <td data-label="Graph">{item.name}</td>
                  <td data-label="State">
                    <span class={`badge ${STATE_BADGE[item.state] ?? 'warn'}`}>{item.state}</span>
                  </td>
                  <td data-label="Started">{formatTime(item.createdAt)}</td>
                  <td data-label="Updated">{formatTime(item.updatedAt)}</td>
                  <td data-label="Actions">
                    <div class="row">
                      <button type="button" onClick={() => select(item.runId)}>
                        Show run {item.runId}
                      </button>
                      {item.state === 'running' ? (
                        <button type="button" class="danger" onClick={() => void cancel(item.runId)}>
                          Cancel run {item.runId}
                        </button>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      </Section>
      {selected === undefined ? null : <GraphRunDetail key={selected} runId={selected} onChanged={onRunChanged} />}
    </>
  );
}
