// One graph run: its nodes in layers of the definition's DAG (a node sits one layer below the last node it needs),
// each with its live state, attempts and error; approval nodes waiting link to the Approvals page.
import { useEffect, useState } from 'preact/hooks';
import { formatTime } from '../lib/format';
import { subscribeEvents } from '../lib/live-events';
import { call, type ResultOf } from '../lib/rpc';
import { BASE, onLinkClick } from '../lib/router';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, Loading, Section } from './ui';

type NodeView = ResultOf<'graph.status'>['nodes'][number];
type NodeState = NodeView['state'];
/** What the DAG needs of a defined node. */
interface DefinedNode {
  id: string;
  type: string;
  needs: readonly string[];
}

export const STATE_BADGE: Record<string, string> = {
  pending: 'warn',
  running: 'warn',
  waiting: 'warn',
  completed: 'ok',
  skipped: 'warn',
  failed: 'bad',
  cancelled: 'bad',
  orphaned: 'bad',
};

const NODE_STATES: readonly string[] = ['pending', 'running', 'completed', 'failed', 'skipped', 'waiting'];
const isNodeState = (value: unknown): value is NodeState => typeof value === 'string' && NODE_STATES.includes(value);

/** Layers of the DAG: a node's layer is one more than the deepest node it needs (definitions are acyclic). */
function layersOf(nodes: readonly DefinedNode[]): DefinedNode[][] {
  const depth = new Map<string, number>();
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const needs = byId.get(id)?.needs ?? [];
    const value = needs.length === 0 ? 0 : 1 + Math.max(...needs.map(depthOf));
    depth.set(id, value);
    return value;
  };
  const layers: DefinedNode[][] = [];
  for (const node of nodes) {
    const layer = depthOf(node.id);
    (layers[layer] ??= []).push(node);
  }
  return layers.filter((layer) => layer.length > 0);
}

function NodeCard({ node, view, state }: { node: DefinedNode; view: NodeView | undefined; state: NodeState }) {
  return (
    <li class="card" aria-label={`Node ${node.id}`}>
      <p>
        <strong>{node.id}</strong> <span class="muted">{node.type}</span>{' '}
        <span class={`badge ${STATE_BADGE[state] ?? 'warn'}`}>{state}</span>
      </p>
      <p class="muted">
        Attempts {view?.attempts ?? 0}
        {node.needs.length === 0 ? '' : ` · needs ${node.needs.join(', ')}`}
        {view?.startedAt === undefined ? '' : ` · started ${formatTime(view.startedAt)}`}
        {view?.endedAt === undefined ? '' : ` · ended ${formatTime(view.endedAt)}`}
      </p>
      {view?.error === undefined ? null : <p class="field-error">{view.error}</p>}
      {node.type === 'approval' && state === 'waiting' ? (
        <p>
          Waiting for an operator:{' '}
          <a href={`${BASE}approvals`} onClick={onLinkClick}>
            decide on the Approvals page
          </a>
        </p>
      ) : null}
    </li>
  );
}

export function GraphRunDetail({ runId, onChanged }: { runId: string; onChanged: () => void }) {
  const status = useAsync(() => call('graph.status', { runId }), [runId]);
  const name = status.data?.name;
  const graph = useAsync(() => (name === undefined ? Promise.resolve(undefined) : call('graph.get', { name })), [name]);
  // States from graph:node_updated events of this run, newer than the last status read.
  const [live, setLive] = useState<Record<string, NodeState>>({});
  const { reload } = status;
  useEffect(() => setLive({}), [status.data]);
  useEffect(
    () =>
      subscribeEvents((event) => {
        if (!event.name.startsWith('graph:') || event.data.runId !== runId) return;
        const { nodeId, status: nodeState } = event.data;
        if (event.name === 'graph:node_updated' && typeof nodeId === 'string' && isNodeState(nodeState))
          setLive((current) => ({ ...current, [nodeId]: nodeState }));
        reload();
        onChanged();
      }),
    [runId, reload, onChanged],
  );

  const run = status.data;
  const defined = graph.data?.definition.nodes ?? [];
  const views = new Map((run?.nodes ?? []).map((node) => [node.id, node]));
  // Nodes the definition no longer has (it was replaced) still show, after the rest.
  const extra: DefinedNode[] = (run?.nodes ?? [])
    .filter((node) => !defined.some((definedNode) => definedNode.id === node.id))
    .map((node) => ({ id: node.id, type: 'node', needs: [] }));
  const layers = layersOf([...defined, ...extra]);
  return (
    <Section title={`Run ${runId}`}>
      <Loading isLoading={status.isLoading && run === undefined} />
      <ErrorNotice error={status.error} />
      <ErrorNotice error={graph.error} />
      {run === undefined ? null : (
        <p>
          <strong>{run.name}</strong> <span class={`badge ${STATE_BADGE[run.state] ?? 'warn'}`}>{run.state}</span>{' '}
          <span class="muted">
            started {formatTime(run.createdAt)}, updated {formatTime(run.updatedAt)}
          </span>
        </p>
      )}
      {run?.error === undefined ? null : <p class="field-error">{run.error}</p>}
      <ol aria-label="Graph layers" class="stack" style={{ listStyle: 'none', padding: 0 }}>
        {layers.map((layer, index) => (
          <li key={index}>
            <h3>Layer {index + 1}</h3>
            <ul class="row" style={{ listStyle: 'none', padding: 0, flexWrap: 'wrap' }}>
              {layer.map((node) => (
                <NodeCard
                  key={node.id}
                  node={node}
                  view={views.get(node.id)}
                  state={live[node.id] ?? views.get(node.id)?.state ?? 'pending'}
                />
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </Section>
  );
}
