// Graph runs of this process: starting one (caps, vars, resumeFrom, the run tree of kind graph), its status and
// cancel (owner-checked), orphan marking at start, and the run's result as the pipeline learning outcome of its turns.
import type { SessionCaller } from '../agents/index.js';
import {
  graphNotFound,
  graphRunForbidden,
  graphRunNotFound,
  graphRunNotResumable,
  graphRunsExceeded,
  graphVarsInvalid,
} from '../errors.js';
import type { RunControl } from '../runs/index.js';
import { ORPHANED_RUN_ERROR, type GraphPort, type RunPort } from '../store/index.js';
import { executeGraph, GraphStop, type GraphExecutorDeps, type GraphRunEnd } from './executor.js';
import { GRAPH_LIMITS } from './limits.js';
import { graphSessionKey } from './run-nodes.js';
import type { GraphDefinition, GraphNodeRecord, GraphRunRecord, GraphRunState, GraphVarType } from './types.js';

/** The graph store as the runs use it. */
export type GraphRunStore = Pick<
  GraphPort,
  'definition' | 'createRun' | 'run' | 'updateRun' | 'runs' | 'runningRuns' | 'countRunning' | 'saveNode' | 'nodes'
>;

export interface GraphRunsDeps extends Omit<GraphExecutorDeps, 'port'> {
  port: GraphRunStore;
  runControl: Pick<RunControl, 'startRun' | 'onStop'>;
  /** The runs table: a graph run whose run record is still `running` belongs to a live instance. */
  runs: Pick<RunPort, 'get'>;
  /** Learning's observe: each turn of a finished run gets the run's result (source pipeline). */
  observe?: (observed: { traceId: string; outcome: 'success' | 'failure'; source: 'pipeline' }) => Promise<unknown>;
  defaultAgentId: () => string | undefined;
  newId: () => string;
}

export interface GraphNodeView {
  id: string;
  state: GraphNodeRecord['state'];
  attempts: number;
  startedAt?: number;
  endedAt?: number;
  output?: unknown;
  error?: string;
}

export interface GraphStatusView extends Omit<GraphRunRecord, 'vars'> {
  vars: Record<string, unknown>;
  nodes: GraphNodeView[];
}

export interface GraphRuns {
  start(input: {
    name: string;
    vars?: Record<string, unknown>;
    resumeFrom?: string;
    caller: SessionCaller;
  }): Promise<{ runId: string }>;
  status(runId: string, caller: SessionCaller): Promise<GraphStatusView>;
  cancel(runId: string, caller: SessionCaller): Promise<{ runId: string; state: GraphRunState }>;
  list(filter: { name?: string; limit: number }, caller: SessionCaller): Promise<GraphRunRecord[]>;
  /** Graph runs a previous process left `running` become `orphaned`; resolves to how many. */
  markOrphaned(): Promise<number>;
  /** Resolves once every run of this process has ended (tests). */
  whenIdle(): Promise<void>;
  /**
   * Stops every run of this process and waits until each is recorded `orphaned` (resumable after the next start);
   * called before the run control aborts the runs' trees at shutdown.
   */
  close(): Promise<void>;
}

interface LiveRun {
  ownerId: string;
  name: string;
  controller: AbortController;
  done: Promise<void>;
}

const VAR_TYPE_OF: Record<GraphVarType, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
  array: (value) => Array.isArray(value),
  object: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
};

/**
 * The declared vars with their defaults under the given ones; an undeclared or mistyped var is refused. Own keys only:
 * a var named `constructor` or `toString` is not declared by Object.prototype.
 */
export function resolveVars(definition: GraphDefinition, given: Record<string, unknown> = {}): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    const spec = Object.hasOwn(definition.vars, name) ? definition.vars[name] : undefined;
    if (spec === undefined) throw graphVarsInvalid(name, 'is not declared by the graph');
    if (!VAR_TYPE_OF[spec.type](value)) throw graphVarsInvalid(name, `must be a ${spec.type}`);
    vars[name] = value;
  }
  for (const [name, spec] of Object.entries(definition.vars))
    if (!Object.hasOwn(vars, name) && spec.default !== undefined) vars[name] = spec.default;
  return vars;
}

function assertOwner(run: GraphRunRecord, caller: SessionCaller, param = 'runId'): void {
  if (!caller.isAdmin && run.ownerId !== caller.clientId) throw graphRunForbidden(run.runId, param);
}

const RESUMABLE: readonly GraphRunState[] = ['failed', 'cancelled', 'orphaned'];

function nodeView(record: GraphNodeRecord): GraphNodeView {
  const { nodeId, state, attempts, startedAt, endedAt, output, error } = record;
  return {
    id: nodeId,
    state,
    attempts,
    ...(startedAt === undefined ? {} : { startedAt }),
    ...(endedAt === undefined ? {} : { endedAt }),
    ...(output === undefined ? {} : { output }),
    ...(error === undefined ? {} : { error }),
  };
}

export function createGraphRuns(deps: GraphRunsDeps): GraphRuns {
  const { port, now, log } = deps;
  const live = new Map<string, LiveRun>();
  // lease.revoke is cooperative: the graph starts no further node. run.kill aborts the run's own signal too, but is
  // told first, so the graph's signal carries which stop it was.
  const unsubscribe = deps.runControl.onStop((rootRunId, reason) => {
    live.get(rootRunId)?.controller.abort(new GraphStop(reason));
  });

  /**
   * Runs `running` in the store (every instance's) for the filter. At the cap, a row whose run is neither live here nor
   * has a running run record is not counted: its instance stopped and the orphan sweep has not reached the graph yet.
   */
  async function runningCount(filter: { ownerId?: string; name?: string }, cap: number): Promise<number> {
    const counted = await port.countRunning(filter);
    if (counted < cap) return counted;
    let alive = 0;
    for (const run of await port.runningRuns()) {
      if (filter.ownerId !== undefined && run.ownerId !== filter.ownerId) continue;
      if (filter.name !== undefined && run.name !== filter.name) continue;
      if (live.has(run.runId) || (await deps.runs.get(run.runId))?.status === 'running') alive += 1;
    }
    return alive;
  }

  async function admit(ownerId: string, name: string): Promise<void> {
    if ((await runningCount({ ownerId }, GRAPH_LIMITS.maxRunsPerToken)) >= GRAPH_LIMITS.maxRunsPerToken)
      throw graphRunsExceeded('maxRunsPerToken', GRAPH_LIMITS.maxRunsPerToken);
    if ((await runningCount({ name }, GRAPH_LIMITS.maxRunsPerGraph)) >= GRAPH_LIMITS.maxRunsPerGraph)
      throw graphRunsExceeded('maxRunsPerGraph', GRAPH_LIMITS.maxRunsPerGraph);
  }

  // Starts in this process pass the caps and write their run one at a time, so concurrent ones cannot pass together.
  let admitting: Promise<void> = Promise.resolve();
  function oneAtATime(work: () => Promise<void>): Promise<void> {
    const done = admitting.then(work);
    admitting = done.catch(() => undefined);
    return done;
  }

  async function owned(runId: string, caller: SessionCaller, param = 'runId'): Promise<GraphRunRecord> {
    const run = await port.run(runId);
    if (run === undefined) throw graphRunNotFound(runId, param);
    assertOwner(run, caller, param);
    return run;
  }

  async function ended(run: GraphRunRecord, end: GraphRunEnd): Promise<void> {
    const { observe } = deps;
    // A cancelled or orphaned run has no result: its turns get no outcome.
    if (end.state === 'cancelled' || end.state === 'orphaned' || observe === undefined) return;
    const outcome = end.state === 'completed' ? 'success' : 'failure';
    // Learning records the outcomes on its own lane (batched): the run's slot is not held while it does.
    for (const traceId of end.traces)
      observe({ traceId, outcome, source: 'pipeline' }).catch((error: unknown) =>
        log.warn({ err: error, runId: run.runId }, 'the pipeline outcome of a graph turn was not recorded'),
      );
    log.debug({ runId: run.runId, state: end.state, turns: end.traces.length }, 'graph run ended');
  }

  return {
    async start({ name, vars, resumeFrom, caller }) {
      const stored = await port.definition(name);
      if (stored === undefined) throw graphNotFound(name);
      const { definition } = stored;
      let carried: GraphNodeRecord[] = [];
      let resumedVars: Record<string, unknown> | undefined;
      if (resumeFrom !== undefined) {
        const previous = await owned(resumeFrom, caller, 'resumeFrom');
        if (previous.name !== name) throw graphRunNotFound(resumeFrom, 'resumeFrom');
        if (!RESUMABLE.includes(previous.state)) throw graphRunNotResumable(resumeFrom, previous.state);
        carried = await port.nodes(resumeFrom);
        resumedVars = previous.vars;
      }
      const resolved = vars === undefined && resumedVars !== undefined ? resumedVars : resolveVars(definition, vars);
      const runId = deps.newId();
      const createdAt = now();
      const run: GraphRunRecord = {
        runId,
        name,
        ownerId: caller.clientId,
        state: 'running',
        vars: resolved,
        ...(resumeFrom === undefined ? {} : { resumedFrom: resumeFrom }),
        createdAt,
        updatedAt: createdAt,
      };
      const controller = new AbortController();
      const entry: LiveRun = { ownerId: caller.clientId, name, controller, done: Promise.resolve() };
      await oneAtATime(async () => {
        await admit(caller.clientId, name);
        await port.createRun(run);
        live.set(runId, entry);
      });
      try {
        const firstAgent = definition.nodes.find((node) => node.type === 'agent');
        const handle = await deps.runControl.startRun({
          runId,
          rootRunId: runId,
          kind: 'graph',
          agentId: firstAgent?.type === 'agent' ? firstAgent.agentId : (deps.defaultAgentId() ?? ''),
          sessionKey: graphSessionKey(run).sessionKey,
          task: `graph ${name}`,
          requestedBy: caller.clientId,
        });
        const signal = AbortSignal.any([controller.signal, handle.signal]);
        entry.done = executeGraph(deps, { definition, run, carried, signal })
          .then(async (end) => {
            await handle.finish({
              status: end.state === 'completed' ? 'completed' : 'failed',
              ...(end.error === undefined ? {} : { error: end.error }),
            });
            await ended(run, end);
          })
          .catch((error: unknown) => log.error({ err: error, runId }, 'a graph run could not be recorded'))
          .finally(() => live.delete(runId));
      } catch (error) {
        live.delete(runId);
        await port.updateRun(runId, { state: 'failed', error: 'The run could not start', updatedAt: now() });
        throw error;
      }
      return { runId };
    },

    async status(runId, caller) {
      const run = await owned(runId, caller);
      const records = await port.nodes(runId);
      const order = (await port.definition(run.name))?.definition.nodes.map((node) => node.id) ?? [];
      const rank = (id: string) => {
        const index = order.indexOf(id);
        return index === -1 ? order.length : index;
      };
      records.sort((a, b) => rank(a.nodeId) - rank(b.nodeId));
      return { ...run, nodes: records.map(nodeView) };
    },

    async cancel(runId, caller) {
      await owned(runId, caller);
      const running = live.get(runId);
      if (running !== undefined) {
        running.controller.abort(new GraphStop('cancelled'));
        await running.done;
      }
      return { runId, state: (await port.run(runId))?.state ?? 'cancelled' };
    },

    list: ({ name, limit }, caller) =>
      port.runs({
        ...(name === undefined ? {} : { name }),
        ...(caller.isAdmin ? {} : { ownerId: caller.clientId }),
        limit,
      }),

    async markOrphaned() {
      let count = 0;
      for (const run of await port.runningRuns()) {
        if (live.has(run.runId) || (await deps.runs.get(run.runId))?.status === 'running') continue;
        for (const node of await port.nodes(run.runId)) {
          if (node.state === 'running' || node.state === 'waiting')
            await port.saveNode({ ...node, state: 'failed', endedAt: now(), error: ORPHANED_RUN_ERROR });
        }
        await port.updateRun(run.runId, { state: 'orphaned', error: ORPHANED_RUN_ERROR, updatedAt: now() });
        count += 1;
      }
      if (count > 0) log.warn({ count }, 'marked graph runs of a previous process as orphaned');
      return count;
    },

    async whenIdle() {
      while (live.size > 0) await Promise.all([...live.values()].map((run) => run.done));
    },

    async close() {
      unsubscribe();
      for (const run of live.values()) run.controller.abort(new GraphStop('shutdown'));
      while (live.size > 0) await Promise.all([...live.values()].map((run) => run.done));
    },
  };
}
