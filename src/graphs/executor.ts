// Runs one graph run to its end: nodes start once every node they need has finished (ready ones together), `when`
// false skips a node (and a node needing only skipped ones), failed attempts retry, a cancel stops it; every node
// state change is saved and emitted, and the run's output template is rendered at the end.
import type { Logger } from 'pino';
import type { EventBus } from '../events/index.js';
import { GATEWAY_SHUTDOWN } from '../runs/index.js';
import { ORPHANED_RUN_ERROR } from '../store/index.js';
import { errorText, runAttempts } from './attempts.js';
import type {
  AgentNode,
  ApprovalNode,
  GraphDefinition,
  GraphNode,
  GraphNodeRecord,
  GraphNodeState,
  GraphRunRecord,
  GraphRunState,
  MapNode,
  TemplateScope,
  ToolNode,
} from './types.js';

/** Node type → its node shape: the node-type table's runners are typed by it. */
export interface NodeOfType {
  agent: AgentNode;
  tool: ToolNode;
  approval: ApprovalNode;
  map: MapNode;
}

/** What a node's runner gets: its run, its id (a map item's is `<mapId>.<index>`), the scope and the attempt's signal. */
export interface NodeRunContext {
  run: GraphRunRecord;
  nodeId: string;
  scope: TemplateScope;
  signal: AbortSignal;
  /** The attempt's number, from 1. */
  attempt: number;
  /** The node waits for someone outside (an approval): its state becomes `waiting`. */
  waiting(): Promise<void>;
  /** The trace of a turn the node ran: the run's result becomes its learning outcome. */
  noteTrace(traceId: string): void;
}

/** The `run` of each node type: resolves to the node's output, rejects with why it failed. */
export type NodeRunners = { [K in keyof NodeOfType]: (node: NodeOfType[K], ctx: NodeRunContext) => Promise<unknown> };

/** Calls the table's runner of the node's type (no switch on type names: the table is the one place). */
export function runNodeOfType<K extends keyof NodeOfType>(
  runners: NodeRunners,
  type: K,
  node: NodeOfType[K],
  ctx: NodeRunContext,
): Promise<unknown> {
  return runners[type](node, ctx);
}

/** Renders templates and evaluates conditions (src/graphs template and condition). */
export interface GraphTemplates {
  render(template: unknown, scope: TemplateScope): unknown;
  evaluate(expression: string, scope: TemplateScope): boolean;
}

export interface GraphExecutorDeps {
  port: {
    saveNode(record: GraphNodeRecord): Promise<void>;
    updateRun(runId: string, patch: Partial<GraphRunRecord>): Promise<unknown>;
  };
  events: Pick<EventBus, 'emit'>;
  runners: NodeRunners;
  templates: GraphTemplates;
  now: () => number;
  log: Logger;
}

export interface ExecuteGraphInput {
  definition: GraphDefinition;
  run: GraphRunRecord;
  /** Completed node records of the run this one resumes: those nodes are not run again. */
  carried: readonly GraphNodeRecord[];
  /** Aborts on graph.cancel, run.kill or lease.revoke of the run's tree, or shutdown. */
  signal: AbortSignal;
}

/**
 * Why a graph run stopped before its end, carried as its signal's abort reason: graph.cancel, run.kill or lease.revoke
 * of its tree (the run is `cancelled`, the error names which), or the gateway's shutdown (the run is `orphaned` as a
 * crash leaves it, so graph.run {resumeFrom} takes it on after the next start).
 */
export type GraphStopKind = 'cancelled' | 'killed' | 'revoked' | 'shutdown';

const STOP_ERRORS: Record<GraphStopKind, string> = {
  cancelled: 'The run was cancelled',
  killed: 'The run was killed (run.kill)',
  revoked: 'The run was revoked (lease.revoke)',
  shutdown: ORPHANED_RUN_ERROR,
};

export class GraphStop extends Error {
  constructor(readonly kind: GraphStopKind) {
    super(STOP_ERRORS[kind]);
    this.name = 'GraphStop';
  }
}

/** The stop an aborted signal carries: its own, the run handle's at shutdown, else a cancel. */
export function stopOf(signal: AbortSignal): GraphStop {
  if (signal.reason instanceof GraphStop) return signal.reason;
  return new GraphStop(signal.reason === GATEWAY_SHUTDOWN ? 'shutdown' : 'cancelled');
}

export interface GraphRunEnd {
  state: Exclude<GraphRunState, 'running'>;
  output?: unknown;
  error?: string;
  /** Traces of the turns the run's agent nodes ran. */
  traces: string[];
}

const FINISHED: readonly GraphNodeState[] = ['completed', 'skipped'];

export async function executeGraph(deps: GraphExecutorDeps, input: ExecuteGraphInput): Promise<GraphRunEnd> {
  const { port, events, runners, templates, now } = deps;
  const { definition, run, signal } = input;
  const records = new Map<string, GraphNodeRecord>();
  const scope: TemplateScope = { vars: run.vars, nodes: {} };
  const traces: string[] = [];
  const subject = { graphId: run.name, runId: run.runId, name: run.name, ownerId: run.ownerId };
  let failure: string | undefined;

  async function save(record: GraphNodeRecord, isStateChange = true): Promise<void> {
    records.set(record.nodeId, record);
    await port.saveNode(record);
    if (isStateChange) events.emit('graph:node_updated', { ...subject, nodeId: record.nodeId, status: record.state });
  }

  const carried = new Map(
    input.carried.filter((node) => node.state === 'completed').map((node) => [node.nodeId, node]),
  );
  for (const node of definition.nodes) {
    const kept = carried.get(node.id);
    const record: GraphNodeRecord =
      kept === undefined
        ? { runId: run.runId, nodeId: node.id, state: 'pending', attempts: 0 }
        : { ...kept, runId: run.runId };
    if (kept !== undefined) scope.nodes[node.id] = { output: kept.output };
    await save(record, false);
  }
  events.emit('graph:started', subject);

  async function execute(node: GraphNode): Promise<void> {
    const startedAt = now();
    let current: GraphNodeRecord = { runId: run.runId, nodeId: node.id, state: 'running', attempts: 0, startedAt };
    await save(current);
    const outcome = await runAttempts(
      node,
      signal,
      (attemptSignal) =>
        runNodeOfType(runners, node.type, node, {
          run,
          nodeId: node.id,
          scope,
          signal: attemptSignal,
          attempt: current.attempts,
          waiting: async () => {
            current = { ...current, state: 'waiting' };
            await save(current);
          },
          noteTrace: (traceId) => traces.push(traceId),
        }),
      async (attempt) => {
        const isStateChange = current.state !== 'running';
        current = { ...current, state: 'running', attempts: attempt };
        await save(current, isStateChange);
      },
    );
    if (outcome.ok) {
      scope.nodes[node.id] = { output: outcome.output };
      await save({
        ...current,
        state: 'completed',
        attempts: outcome.attempts,
        endedAt: now(),
        output: outcome.output,
      });
      return;
    }
    failure ??= `node '${node.id}' failed: ${outcome.error}`;
    // A node the gateway's shutdown stopped reads as one a crash left: the next start would have marked it so.
    const error = signal.aborted && stopOf(signal).kind === 'shutdown' ? ORPHANED_RUN_ERROR : outcome.error;
    await save({ ...current, state: 'failed', attempts: outcome.attempts, endedAt: now(), error });
  }

  /** Starts or skips every pending node whose needs have finished; true when a node was skipped (others may follow). */
  async function schedule(running: Map<string, Promise<void>>): Promise<boolean> {
    let hasSkipped = false;
    for (const node of definition.nodes) {
      if (records.get(node.id)?.state !== 'pending' || running.has(node.id)) continue;
      const needs = node.needs.map((id) => records.get(id)?.state);
      if (!needs.every((state) => state !== undefined && FINISHED.includes(state))) continue;
      let isSkipped = needs.length > 0 && needs.every((state) => state === 'skipped');
      if (!isSkipped && node.when !== undefined) {
        try {
          isSkipped = !templates.evaluate(node.when, scope);
        } catch (error) {
          failure ??= `node '${node.id}' failed: ${errorText(error)}`;
          await save({ runId: run.runId, nodeId: node.id, state: 'failed', attempts: 0, error: errorText(error) });
          return false;
        }
      }
      if (isSkipped) {
        await save({ runId: run.runId, nodeId: node.id, state: 'skipped', attempts: 0, endedAt: now() });
        hasSkipped = true;
        continue;
      }
      const started = execute(node)
        .catch((error: unknown) => {
          failure ??= `node '${node.id}' could not be recorded: ${errorText(error)}`;
          deps.log.error({ err: error, runId: run.runId, nodeId: node.id }, 'a graph node could not be recorded');
        })
        .finally(() => running.delete(node.id));
      running.set(node.id, started);
    }
    return hasSkipped;
  }

  const running = new Map<string, Promise<void>>();
  for (;;) {
    if (!signal.aborted && failure === undefined) while (await schedule(running));
    if (running.size === 0) break;
    await Promise.race(running.values());
  }

  const end = finish();
  await port.updateRun(run.runId, {
    state: end.state,
    updatedAt: now(),
    ...(end.output === undefined ? {} : { output: end.output }),
    ...(end.error === undefined ? {} : { error: end.error }),
  });
  events.emit('graph:completed', { ...subject, status: end.state });
  return end;

  function finish(): GraphRunEnd {
    if (signal.aborted) {
      const stop = stopOf(signal);
      return { state: stop.kind === 'shutdown' ? 'orphaned' : 'cancelled', error: stop.message, traces };
    }
    if (failure !== undefined) return { state: 'failed', error: failure, traces };
    if (definition.output === undefined) return { state: 'completed', traces };
    try {
      return { state: 'completed', output: templates.render(definition.output, scope), traces };
    } catch (error) {
      return { state: 'failed', error: `output: ${errorText(error)}`, traces };
    }
  }
}
