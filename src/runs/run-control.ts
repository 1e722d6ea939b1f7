// Run control: every run of this process starts here (spawns, cron fires, webhooks) and can be stopped as a tree:
// run.kill aborts it now, lease.revoke stops it at the next step boundary, the denial breaker aborts it. A tree
// another replica runs is stopped by that replica, told through the peer channel.
import type { TurnHooks } from '../turns/types.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { Instances, PeerChannel, RunStop } from '../coordination/index.js';
import { runNotFound, runTreeStopped } from '../errors.js';
import { SIGNAL_KIND, type HealthSignalRecorder } from '../obs/index.js';
import type { RunKind, RunPort, RunRecord, RunStatus } from '../store/index.js';
import { stopRecorded } from './stop-recorded.js';

/**
 * The abort reason of every live run's signal when the gateway shuts down (an AbortError, so code that checks the
 * name reads it as any abort): a run's owner tells a shutdown from run.kill by it and records the run as a crash would
 * leave it.
 */
export const GATEWAY_SHUTDOWN = new DOMException('The gateway is shutting down', 'AbortError');

export interface StartRunInput {
  runId: string;
  rootRunId: string;
  kind: RunKind;
  agentId: string;
  sessionKey: string;
  task: string;
  requestedBy: string | null;
  /** The session that spawned the run; null for cron fires and webhooks. */
  parentKey?: string | null;
  /** The capability lease the run holds (an orchestrate run): lease.revoke may name the run by it while it is live. */
  leaseId?: string;
}

export interface RunOutcomeInput {
  status: 'completed' | 'failed';
  response?: string;
  tokensUsed?: { input: number; output: number; total: number };
  costUsd?: number;
  error?: string;
}

export interface RunHandle {
  /** Aborts when run.kill hits the run's tree, the denial breaker trips for it, or the gateway shuts down. */
  signal: AbortSignal;
  /** Records the outcome once (later calls are ignored); a stopped tree's run records `revoked` whatever the turn did. */
  finish(outcome: RunOutcomeInput): Promise<RunRecord>;
}

/** The RunLifecycle and DenialBreaker of the issue 13 contract, plus the operator's controls. */
export interface RunControl {
  startRun(input: StartRunInput): Promise<RunHandle>;
  tripDenialBreaker(rootRunId: string, detail: { agentId: string; consecutiveDenials: number }): Promise<void>;
  /** Aborts the run's whole tree now; resolves to the run's status afterwards. */
  kill(runId: string, by: string): Promise<{ runId: string; status: RunStatus }>;
  /** The run's tree stops at each turn's next step boundary; resolves to the run's status afterwards. */
  revoke(runId: string, by: string): Promise<{ runId: string; status: RunStatus }>;
  /** Turn hooks: the step-boundary stop of revoked trees and the budget and breaker health signals of runs. */
  readonly hooks: Pick<TurnHooks, 'beforeModel' | 'afterTurn'>;
  /** Aborts every live run (gateway shutdown); their owners still record the outcomes. */
  close(): void;
  /** The live run holding `leaseId`, if any. */
  runOfLease(leaseId: string): string | undefined;
  /** The lease a live run holds, if any. */
  leaseOf(runId: string): string | undefined;
  /** Told of each tree run.kill or lease.revoke stops, before the call answers; returns the unsubscribe. */
  onStop(listener: (rootRunId: string, reason: 'killed' | 'revoked') => void): () => void;
}

export interface RunControlDeps {
  runs: RunPort;
  events: EventBus;
  signals?: HealthSignalRecorder;
  instances: Instances;
  now: () => number;
  log: Logger;
  /** How often this instance heartbeats its running runs, in milliseconds. */
  runHeartbeatMs: number;
  /** Stops of run trees sent to and from the other replicas; absent when this process is the only one. */
  peerStops?: PeerChannel<RunStop>;
}

type StopReason = 'killed' | 'revoked' | 'denial_breaker';

interface LiveRun {
  record: RunRecord;
  controller: AbortController;
  leaseId?: string;
}

/** Why a run of a tree the denial breaker stopped has no answer; the run still ends `completed` (spec). */
const denialBreakerError = (denials: number) =>
  `The capability-denial breaker stopped the run tree after ${denials} consecutive denials`;

export function createRunControl(deps: RunControlDeps): RunControl {
  const { runs, events, signals, instances, peerStops, now, log } = deps;
  const live = new Map<string, LiveRun>();
  /** Trees stopped while they have live runs; dropped with the tree's last live run. */
  const stopped = new Map<string, { reason: StopReason; denials: number }>();
  /** Roots whose pick-up after a restart was already recorded by this process. */
  const resumedRoots = new Set<string>();
  let isClosed = false;
  const stopListeners = new Set<(rootRunId: string, reason: 'killed' | 'revoked') => void>();
  // Only this instance's running runs are touched; a failed beat is logged and the next one tries again.
  const heartbeat = setInterval(() => {
    if (live.size === 0) return;
    runs
      .heartbeat(instances.currentId, now())
      .catch((error: unknown) => log.warn({ err: error }, 'could not heartbeat runs'));
  }, deps.runHeartbeatMs);
  heartbeat.unref();

  const liveOf = (rootRunId: string): LiveRun[] =>
    [...live.values()].filter((run) => run.record.rootRunId === rootRunId);

  /** A stopped tree takes no new runs: its own stop while live, or a root run recorded `revoked`. */
  async function assertTreeOpen(rootRunId: string, runId: string): Promise<void> {
    if (stopped.has(rootRunId)) throw runTreeStopped(rootRunId);
    if (rootRunId === runId) return;
    const root = await runs.get(rootRunId);
    if (root?.status === 'revoked') throw runTreeStopped(rootRunId);
  }

  /** A run joining a tree a restart left orphaned picks that tree up again: one `resumed` signal per tree. */
  async function noteResumed(input: StartRunInput): Promise<void> {
    if (input.rootRunId === input.runId || resumedRoots.has(input.rootRunId)) return;
    const orphaned = await runs.list({ rootRunId: input.rootRunId, status: 'orphaned', limit: 1 });
    if (orphaned.length === 0) return;
    resumedRoots.add(input.rootRunId);
    signals?.record({
      kind: SIGNAL_KIND.autonomyResumed,
      rootRunId: input.rootRunId,
      agentId: input.agentId,
      severity: 'info',
      data: { runId: input.runId },
    });
  }

  function finalStatus(run: LiveRun, outcome: RunOutcomeInput): { status: RunStatus; error: string | null } {
    const stop = stopped.get(run.record.rootRunId);
    if (stop === undefined) return { status: outcome.status, error: outcome.error ?? null };
    if (stop.reason === 'denial_breaker') return { status: 'completed', error: denialBreakerError(stop.denials) };
    return {
      status: 'revoked',
      error: stop.reason === 'killed' ? 'The run was killed (run.kill)' : 'The run was revoked (lease.revoke)',
    };
  }

  async function finishRun(run: LiveRun, outcome: RunOutcomeInput): Promise<RunRecord> {
    if (live.get(run.record.runId) !== run) return (await runs.get(run.record.runId)) ?? run.record;
    const { status, error } = finalStatus(run, outcome);
    const finished: RunRecord = {
      ...run.record,
      status,
      completedAt: now(),
      response: outcome.response ?? null,
      tokensUsed: outcome.tokensUsed ?? null,
      costUsd: outcome.costUsd ?? null,
      error,
    };
    live.delete(run.record.runId);
    if (liveOf(run.record.rootRunId).length === 0) stopped.delete(run.record.rootRunId);
    await runs.finish(run.record.runId, finished);
    return finished;
  }

  /** Marks the tree stopped and its live runs `revoked` in the store at once, so run.get shows it before they end. */
  async function stopTree(
    runId: string,
    reason: 'killed' | 'revoked',
  ): Promise<{ record: RunRecord; tree: LiveRun[] }> {
    const record = await runs.get(runId);
    if (record === undefined) throw runNotFound(runId, 'runId');
    const tree = liveOf(record.rootRunId);
    const previous = stopped.get(record.rootRunId);
    // Only a kill of a tree being revoked changes anything once it is stopped: a kill or the breaker already aborted
    // it (the breaker's runs end completed, spec), and a second revoke repeats the first.
    const isEscalation = previous?.reason === 'revoked' && reason === 'killed';
    if (tree.length === 0 || (previous !== undefined && !isEscalation)) return { record, tree: [] };
    stopped.set(record.rootRunId, { reason, denials: 0 });
    for (const run of tree) {
      await runs.finish(run.record.runId, { ...run.record, status: 'revoked', completedAt: null, error: null });
    }
    for (const listener of stopListeners) listener(record.rootRunId, reason);
    return { record, tree };
  }

  async function statusOf(record: RunRecord): Promise<{ runId: string; status: RunStatus }> {
    return { runId: record.runId, status: (await runs.get(record.runId))?.status ?? record.status };
  }

  /** Stops the tree if it runs here: a kill aborts it now, a revoke at each turn's next step boundary. */
  async function stopHere(runId: string, reason: 'killed' | 'revoked', by: string): Promise<RunRecord> {
    const { record, tree } = await stopTree(runId, reason);
    if (tree.length === 0) return record;
    const detail = { runId, rootRunId: record.rootRunId, runs: tree.length, by };
    if (reason === 'killed') {
      for (const run of tree) run.controller.abort();
      events.emit('run:killed', detail);
      signals?.record({
        kind: SIGNAL_KIND.autonomyKilled,
        rootRunId: record.rootRunId,
        agentId: record.agentId,
        severity: 'warning',
        data: { runId, runs: tree.length },
      });
      log.info(detail, 'run tree killed');
    } else {
      events.emit('run:revoked', detail);
      log.info(detail, 'run tree revoked');
    }
    return record;
  }

  /** A tree another replica runs is stopped there: the stop is sent to it, and the answer waits for it to be recorded. */
  async function stop(runId: string, reason: 'killed' | 'revoked', by: string) {
    const record = await stopHere(runId, reason, by);
    const owner = record.ownerInstance;
    const isElsewhere = owner !== null && owner !== instances.currentId && liveOf(record.rootRunId).length === 0;
    if (!isElsewhere || peerStops === undefined) return statusOf(record);
    await peerStops.publish({ runId, rootRunId: record.rootRunId, reason, by });
    return record.status === 'running' ? stopRecorded(runs, runId) : statusOf(record);
  }

  const unsubscribePeerStops = peerStops?.subscribe(function stopForPeer(message) {
    if (liveOf(message.rootRunId).length === 0) return;
    stopHere(message.runId, message.reason, message.by).catch((error: unknown) =>
      log.warn({ err: error, runId: message.runId }, 'could not stop a run tree another replica asked to stop'),
    );
  });

  function stopAtBoundary(sessionKey: string, rootRunId: string | undefined): void {
    if (rootRunId === undefined || !stopped.has(rootRunId)) return;
    for (const run of liveOf(rootRunId)) if (run.record.sessionKey === sessionKey) run.controller.abort();
  }

  return {
    async startRun(input) {
      await assertTreeOpen(input.rootRunId, input.runId);
      await noteResumed(input);
      const startedAt = now();
      const record: RunRecord = {
        runId: input.runId,
        rootRunId: input.rootRunId,
        kind: input.kind,
        parentKey: input.parentKey ?? null,
        sessionKey: input.sessionKey,
        agentId: input.agentId,
        task: input.task,
        status: 'running',
        requestedBy: input.requestedBy,
        startedAt,
        completedAt: null,
        response: null,
        tokensUsed: null,
        costUsd: null,
        error: null,
        ownerInstance: instances.currentId,
        heartbeatAt: startedAt,
      };
      await runs.create(record);
      const run: LiveRun = {
        record,
        controller: new AbortController(),
        ...(input.leaseId === undefined ? {} : { leaseId: input.leaseId }),
      };
      live.set(record.runId, run);
      if (isClosed) run.controller.abort();
      return { signal: run.controller.signal, finish: (outcome) => finishRun(run, outcome) };
    },

    async tripDenialBreaker(rootRunId, { agentId, consecutiveDenials }) {
      if (stopped.get(rootRunId)?.reason === 'denial_breaker') return;
      const tree = liveOf(rootRunId);
      if (tree.length > 0) stopped.set(rootRunId, { reason: 'denial_breaker', denials: consecutiveDenials });
      for (const run of tree) run.controller.abort();
      log.warn({ rootRunId, agentId, consecutiveDenials, runs: tree.length }, 'denial breaker stopped a run tree');
      signals?.record({
        kind: SIGNAL_KIND.autonomyDenialBreaker,
        rootRunId,
        agentId,
        severity: 'warning',
        data: { consecutiveDenials, runs: tree.length },
      });
    },

    kill: (runId, by) => stop(runId, 'killed', by),
    revoke: (runId, by) => stop(runId, 'revoked', by),

    hooks: {
      async beforeModel(_input, ctx) {
        stopAtBoundary(ctx.sessionKey, ctx.rootRunId);
        return undefined;
      },
      async afterTurn({ finishReason, tokensUsed }, ctx) {
        if (ctx.rootRunId === undefined || signals === undefined) return;
        if (finishReason === 'budget_exceeded') {
          signals.record({
            kind: SIGNAL_KIND.autonomyBudgetBreach,
            rootRunId: ctx.rootRunId,
            agentId: ctx.agentId,
            severity: 'warning',
            data: { totalTokens: tokensUsed.total },
          });
        } else if (finishReason === 'circuit_open') {
          signals.record({
            kind: SIGNAL_KIND.autonomyBreakerTrip,
            rootRunId: ctx.rootRunId,
            agentId: ctx.agentId,
            severity: 'warning',
          });
        }
      },
    },

    runOfLease(leaseId) {
      for (const run of live.values()) if (run.leaseId === leaseId) return run.record.runId;
      return undefined;
    },

    leaseOf: (runId) => live.get(runId)?.leaseId,

    onStop(listener) {
      stopListeners.add(listener);
      return () => stopListeners.delete(listener);
    },

    close() {
      isClosed = true;
      clearInterval(heartbeat);
      unsubscribePeerStops?.();
      for (const run of live.values()) run.controller.abort(GATEWAY_SHUTDOWN);
    },
  };
}
