// Sub-agent runs: each spawned turn runs in the background through TurnService and is recorded as a durable run.
import type { ParsedSessionKey } from '../sessions/types.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { AgentRegistry, SessionCaller } from '../agents/index.js';
import type { Instances } from '../coordination/index.js';
import { GatewayError, maskUnknown, publicMessage, runNotFound } from '../errors.js';
import type { RunPort, RunRecord, RunStatus, SessionPort } from '../store/index.js';
import type { RunControl, RunHandle } from './run-control.js';
import { undoneTaskError, type TurnResult, type TurnService } from '../turns/index.js';
import { assertSessionAccess, parseSessionKey, sessionAgentId, subAgentSessionKey } from '../sessions/index.js';

/** Sends a JSON-RPC notification to one client's connections, or to all of them when clientId is null. */
export type Notify = (clientId: string | null, method: string, params: unknown) => unknown;

export interface SpawnResult {
  runId: string;
  sessionKey: string;
  /** queued: the concurrency limit is reached; the run starts (same runId and sessionKey) when a running one ends. */
  status: 'running' | 'queued';
}

/** session.run_status; optional fields are absent until the run has them. */
export interface RunStatusView {
  runId: string;
  status: RunStatus;
  agentId: string;
  task: string;
  sessionKey: string;
  startedAt: number;
  completedAt?: number;
  runtimeMs: number;
  response?: string;
  tokensUsed?: { input: number; output: number; total: number };
  cost?: number;
  error?: string;
}

export interface SubAgentRunsDeps {
  store: Pick<SessionPort, 'get'>;
  runs: RunPort;
  /** Runs each sub-agent turn and creates its session (TurnService.ensureSession). */
  turns: Pick<TurnService, 'run' | 'ensureSession'>;
  events: EventBus;
  notify: Notify;
  now: () => number;
  newId: () => string;
  log: Logger;
  /** A spawn runs the agent it names, or the parent session's, or the default. */
  agents?: AgentRegistry;
  /** Spawned runs allowed in flight at once in this process; beyond it a spawn queues, or is refused. */
  maxRunningSpawns: number;
  /** runs.spawnQueue: spawns that may wait for a slot (session:sub_agent_spawn_queued); absent: none, refused at once. */
  spawnQueue?: () => number;
  /** This process's instance (recorded as each run's owner) and which owners are still alive. */
  instances: Instances;
  /** Records each run and hands it the signal that run.kill, lease.revoke and the denial breaker stop. */
  control: Pick<RunControl, 'startRun' | 'close'>;
}

export interface SubAgentRuns {
  /** The run's session is owned by `caller`; an existing parent session must be theirs (or they admin). */
  spawn(input: { parentKey: string; task: string; agentId?: string; caller: SessionCaller }): Promise<SpawnResult>;
  runStatus(runId: string, requestedBy?: string): Promise<RunStatusView>;
  /** Runs still `running` whose owner instance is not alive become `orphaned`; resolves to how many. */
  recoverOrphanedRuns(): Promise<number>;
  /** Resolves once every spawned run of this process has finished and been recorded. */
  whenIdle(): Promise<void>;
  /** Aborts runs in flight and waits until each is recorded. */
  close(): Promise<void>;
}

/** A spawn accepted but not yet started: what begin() needs to write and run it. */
interface PendingSpawn {
  runId: string;
  parentKey: string;
  task: string;
  caller: SessionCaller;
  key: ParsedSessionKey;
  agentId: string;
  rootRunId: string;
}

export function toView(run: RunRecord, now: number): RunStatusView {
  const view: RunStatusView = {
    runId: run.runId,
    status: run.status,
    agentId: run.agentId,
    task: run.task,
    sessionKey: run.sessionKey,
    startedAt: run.startedAt,
    runtimeMs: Math.max(0, (run.completedAt ?? now) - run.startedAt),
  };
  if (run.completedAt !== null) view.completedAt = run.completedAt;
  if (run.response !== null) view.response = run.response;
  if (run.tokensUsed !== null) view.tokensUsed = run.tokensUsed;
  if (run.costUsd !== null) view.cost = run.costUsd;
  if (run.error !== null) view.error = run.error;
  return view;
}

export function createSubAgentRuns(deps: SubAgentRunsDeps): SubAgentRuns {
  const { store, runs, turns, events, notify, now, newId, log, control } = deps;
  const inFlight = new Set<Promise<void>>();
  const { instances } = deps;
  let isClosing = false;
  /** Spawns past the limit check whose run is still being written. */
  let starting = 0;
  /** Spawns waiting for a slot, oldest first (runs.spawnQueue bounds it). */
  const queue: PendingSpawn[] = [];
  /** Queued spawns being started by drain(). */
  const starts = new Set<Promise<void>>();

  async function execute(
    run: RunRecord,
    key: ParsedSessionKey,
    handle: RunHandle,
    caller: SessionCaller,
  ): Promise<void> {
    events.emit('session:sub_agent_spawned', {
      runId: run.runId,
      parentKey: run.parentKey,
      sessionKey: run.sessionKey,
      agentId: run.agentId,
    });
    let result: TurnResult | undefined;
    let failure: string | null = null;
    try {
      result = await turns.run({
        ...key,
        agentId: run.agentId,
        message: run.task,
        rootRunId: run.rootRunId,
        caller,
        signal: handle.signal,
      });
      failure = undoneTaskError(result) ?? null;
    } catch (error) {
      failure = publicMessage(maskUnknown(error, log, { runId: run.runId }, 'sub-agent run failed'));
    }
    const finished = await handle.finish({
      status: failure === null ? 'completed' : 'failed',
      ...(result === undefined
        ? {}
        : { response: result.response, tokensUsed: result.tokensUsed, costUsd: result.costUsd }),
      ...(failure === null ? {} : { error: failure }),
    });
    const { status } = finished;
    const runtimeMs = Math.max(0, (finished.completedAt ?? run.startedAt) - run.startedAt);
    events.emit('session:sub_agent_completed', {
      runId: run.runId,
      sessionKey: run.sessionKey,
      agentId: run.agentId,
      status,
      runtimeMs,
      totalTokens: finished.tokensUsed?.total ?? 0,
    });
    events.emit('session:sub_agent_lifecycle_ended', { runId: run.runId, sessionKey: run.sessionKey, status });
    // Spec (gateway-http-ws, "Server notifications"): session.completed { sessionKey, result } to the requester.
    const view = toView(finished, now());
    notify(run.requestedBy, 'session.completed', {
      sessionKey: run.sessionKey,
      result: result === undefined ? view : { ...view, finishReason: result.finishReason },
    });
  }

  function track(run: RunRecord, key: ParsedSessionKey, handle: RunHandle, caller: SessionCaller): void {
    const promise = execute(run, key, handle, caller)
      .catch((error: unknown) => {
        // Recording the outcome itself failed (the store is closed); the run stays `running` until restart.
        log.error({ err: error, runId: run.runId }, 'could not record a sub-agent run outcome');
      })
      .finally(() => {
        inFlight.delete(promise);
        drain();
      });
    inFlight.add(promise);
  }

  /** Writes the run and its session, then runs it in the background. */
  async function begin(spawn: PendingSpawn): Promise<SpawnResult> {
    const { runId, parentKey, task, caller, key, agentId: resolvedAgentId, rootRunId } = spawn;
    const { sessionKey } = key;
    // The slot is held while the run is written, so concurrent spawns cannot pass the limit together.
    starting += 1;
    let handle: RunHandle;
    try {
      handle = await control.startRun({
        runId,
        rootRunId,
        kind: 'spawn',
        parentKey,
        sessionKey,
        agentId: resolvedAgentId,
        task,
        requestedBy: caller.clientId,
      });
      try {
        await turns.ensureSession({
          ...key,
          agentId: resolvedAgentId,
          metadata: { kind: 'sub-agent', parentKey, runId, rootRunId, requestedBy: caller.clientId },
          caller,
        });
      } catch (error) {
        await handle.finish({
          status: 'failed',
          error: publicMessage(maskUnknown(error, log, { runId }, 'could not create a sub-agent session')),
        });
        throw error;
      }
    } finally {
      starting -= 1;
    }
    const run = await runs.get(runId);
    if (run === undefined) throw runNotFound(runId);
    events.emit('session:sub_agent_spawn_started', { runId, parentKey, sessionKey, agentId: resolvedAgentId });
    track(run, key, handle, caller);
    return { runId, sessionKey, status: 'running' };
  }

  /** Starts queued spawns, oldest first, while slots are free. */
  function drain(): void {
    while (!isClosing && queue.length > 0 && inFlight.size + starting < deps.maxRunningSpawns) {
      const next = queue.shift();
      if (next === undefined) return;
      const started = begin(next)
        .then(
          () => undefined,
          (error: unknown) => {
            log.warn({ err: error, runId: next.runId }, 'a queued sub-agent spawn could not start');
          },
        )
        .finally(() => drain());
      // begin() took its slot (`starting`) synchronously, so the loop sees it before starting the next.
      starts.add(started);
      void started.finally(() => starts.delete(started));
    }
  }

  return {
    async spawn({ parentKey, task, agentId, caller }) {
      const parentParts = parseSessionKey(parentKey, 'parentKey');
      const parent = await store.get(parentKey);
      // Spawning under someone else's session would read its agent and join its run tree; a new key is fine.
      if (parent !== undefined) assertSessionAccess(parent, caller);
      if (isClosing) throw new GatewayError('unavailable', 'The gateway is shutting down');
      const isFull = inFlight.size + starting >= deps.maxRunningSpawns || queue.length > 0;
      if (isFull && queue.length >= (deps.spawnQueue?.() ?? 0)) {
        events.emit('session:sub_agent_spawn_rejected', {
          parentKey,
          reason: 'too_many_running',
          running: inFlight.size + starting,
        });
        throw new GatewayError('rate_limited', `Too many sub-agent runs in flight (maximum ${deps.maxRunningSpawns})`);
      }
      const runId = newId();
      const key = subAgentSessionKey(parentParts, runId);
      const spawn: PendingSpawn = {
        runId,
        parentKey,
        task,
        caller,
        key,
        agentId: sessionAgentId(deps.agents, agentId, parent),
        // A spawn from inside a sub-agent session belongs to the same tree as the run that made that session.
        rootRunId: typeof parent?.metadata.rootRunId === 'string' ? parent.metadata.rootRunId : runId,
      };
      if (!isFull) return begin(spawn);
      queue.push(spawn);
      events.emit('session:sub_agent_spawn_queued', { runId, parentKey });
      return { runId, sessionKey: key.sessionKey, status: 'queued' };
    },
    async runStatus(runId, requestedBy) {
      const run = await runs.get(runId);
      if (run === undefined || (requestedBy !== undefined && run.requestedBy !== requestedBy)) throw runNotFound(runId);
      return toView(run, now());
    },
    async recoverOrphanedRuns() {
      const owners = await runs.runningOwners();
      const alive = await Promise.all(owners.map((owner) => (owner === null ? false : instances.isAlive(owner))));
      const count = await runs.markOrphaned(
        owners.filter((_owner, index) => !alive[index]),
        now(),
      );
      if (count > 0) log.warn({ count }, 'marked runs of a previous process as orphaned');
      return count;
    },
    async whenIdle() {
      while (inFlight.size > 0 || starts.size > 0) await Promise.all([...inFlight, ...starts]);
    },
    async close() {
      isClosing = true;
      if (queue.length > 0) log.warn({ queued: queue.length }, 'queued sub-agent spawns dropped at shutdown');
      queue.length = 0;
      control.close();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
