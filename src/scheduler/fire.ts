// One fire of a job: the wake gate, then an agent turn in the job's own session as a run; leaves one run entry.
import type { ParsedSessionKey } from '../sessions/types.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import { maskUnknown, publicMessage } from '../errors.js';
import type { SessionCaller } from '../agents/index.js';
import type { HealthSignalRecorder, TrajectoryRecord } from '../obs/index.js';
import { SIGNAL_KIND, TRAJECTORY_KIND } from '../obs/index.js';
import type { JobPort, JobRecord, JobRunRecord } from '../store/index.js';
import { turnRunOutcome, undoneTaskError, type TurnResult, type TurnRunner } from '../turns/index.js';
import { DEFAULT_TENANT } from '../sessions/index.js';
import { deliverHeartbeat, heartbeatAlert, type HeartbeatDelivery } from './heartbeat.js';
import { evaluateWakeGate, type GateDeps } from './wake-gate.js';
import type { FireReason, RunLifecycle } from './types.js';

/** Characters of the agent's answer kept as a run entry's summary. */
export const SUMMARY_MAX_CHARS = 200;

/** The summary the spec gives a fire its wake gate skipped. */
export const WAKE_GATE_SKIPPED = 'wake-gate: skipped';

export interface FireDeps {
  jobs: JobPort;
  turns: TurnRunner;
  runs: RunLifecycle;
  events: Pick<EventBus, 'emit'>;
  signals: HealthSignalRecorder;
  recorder: { trajectory(record: TrajectoryRecord): void };
  gate: GateDeps;
  defaultAgentId: () => string;
  /** scheduler.jobHistoryMessages: the newest messages of the job's session its turn is given. */
  historyLimit: () => number;
  now: () => number;
  newId: () => string;
  log: Logger;
  /** Where heartbeat jobs' answers go; without it a heartbeat fire's delivery fails (alerted). */
  heartbeats?: HeartbeatDelivery;
}

/**
 * Every fire of a job runs in this session, owned by the job's owner: `<tenant>:<owner>:cron:<jobId>`. Token ids and
 * job ids hold no ':', so the parts are known without parsing.
 */
export function jobSessionKey(job: Pick<JobRecord, 'id' | 'ownerId'>): ParsedSessionKey {
  const keyParts = { tenantId: DEFAULT_TENANT, userId: job.ownerId, channelId: 'cron', peerId: job.id };
  return { sessionKey: `${keyParts.tenantId}:${keyParts.userId}:cron:${keyParts.peerId}`, keyParts };
}

export function ownerCaller(job: Pick<JobRecord, 'ownerId'>): SessionCaller {
  return { clientId: job.ownerId, isAdmin: false };
}

function summaryOf(reason: FireReason, missed: number, response: string): string | null {
  if (reason === 'missed') return `missed-fire: run-once (${missed} missed)`;
  const text = response.trim();
  return text === '' ? null : text.slice(0, SUMMARY_MAX_CHARS);
}

async function recordOutcome(deps: FireDeps, job: JobRecord, entry: JobRunRecord): Promise<void> {
  await deps.jobs.appendRun(entry);
  const current = await deps.jobs.get(job.id);
  if (current !== undefined)
    await deps.jobs.save({
      ...current,
      lastRunAtMs: entry.ts,
      lastError: entry.status === 'error' ? entry.error : null,
    });
}

/** Runs one fire to its end and records it; never throws (a failure is the entry's `error`). */
export async function runFire(
  deps: FireDeps,
  job: JobRecord,
  reason: FireReason,
  missed: number,
  shutdown: AbortSignal,
): Promise<void> {
  const startedAt = deps.now();
  const runId = deps.newId();
  const agentId = job.agentId ?? deps.defaultAgentId();
  const key = jobSessionKey(job);
  const { sessionKey } = key;
  const caller = ownerCaller(job);
  const entry = (fields: Partial<JobRunRecord>): JobRunRecord => ({
    ts: startedAt,
    jobId: job.id,
    status: 'ok',
    durationMs: deps.now() - startedAt,
    summary: null,
    error: null,
    toolCalls: null,
    estTurnsSaved: null,
    rootRunId: runId,
    ...fields,
  });
  deps.events.emit('scheduler:job_started', { jobId: job.id, jobName: job.name, agentId, runId, ownerId: job.ownerId });
  const heartbeat = { events: deps.events, delivery: deps.heartbeats, log: deps.log };
  const completed = (status: JobRunRecord['status']) =>
    deps.events.emit('scheduler:job_completed', {
      jobId: job.id,
      jobName: job.name,
      agentId,
      runId,
      status,
      durationMs: deps.now() - startedAt,
      ownerId: job.ownerId,
    });
  try {
    // A forced fire is an operator asking for the turn now, so the gate does not stand in its way.
    const gate = reason === 'force' ? null : job.wakeGate;
    let gateEvidence: { durationMs: number; toolCalls: number } | undefined;
    if (gate !== null) {
      const verdict = await evaluateWakeGate(deps.gate, gate, { job, agentId, sessionKey, caller, signal: shutdown });
      const gateMs = deps.now() - startedAt;
      deps.signals.record({
        kind: SIGNAL_KIND.cronWakeGate,
        agentId,
        rootRunId: runId,
        data: {
          jobId: job.id,
          wake: verdict.wake,
          failedOpen: verdict.failedOpen,
          toolCalls: verdict.toolCalls,
          estTurnsSaved: verdict.wake ? 0 : 1,
        },
      });
      if (!verdict.wake) {
        await recordOutcome(
          deps,
          job,
          entry({ status: 'skipped', summary: WAKE_GATE_SKIPPED, toolCalls: verdict.toolCalls, estTurnsSaved: 1 }),
        );
        completed('skipped');
        return;
      }
      gateEvidence = { durationMs: gateMs, toolCalls: verdict.toolCalls };
    }
    if (job.heartbeat !== null) deps.events.emit('scheduler:heartbeat_check', { jobId: job.id, agentId });
    const run = await deps.runs.startRun({
      runId,
      rootRunId: runId,
      kind: 'cron',
      agentId,
      sessionKey,
      task: job.message,
      requestedBy: job.ownerId,
    });
    let result: TurnResult | undefined;
    let failure: string | undefined;
    try {
      result = await deps.turns.run({
        ...(job.agentId === null ? {} : { agentId: job.agentId }),
        ...key,
        message: job.message,
        caller,
        rootRunId: runId,
        historyLimit: deps.historyLimit(),
        signal: AbortSignal.any([run.signal, shutdown]),
      });
      failure = undoneTaskError(result);
    } catch (error) {
      failure = publicMessage(maskUnknown(error, deps.log, { jobId: job.id, runId }, 'a scheduled turn failed'));
    }
    await run.finish(turnRunOutcome(result, failure));
    if (gateEvidence !== undefined && result !== undefined) {
      // obs.explain's cronWakeGate block: a gated fire that woke the model inside the job's session.
      deps.recorder.trajectory({
        sessionKey,
        traceId: result.traceId,
        kind: TRAJECTORY_KIND.cronWakeGate,
        ts: startedAt,
        data: {
          jobId: job.id,
          wake: true,
          durationMs: gateEvidence.durationMs,
          toolCalls: gateEvidence.toolCalls,
          estTurnsSaved: 0,
        },
      });
    }
    if (job.heartbeat !== null) {
      if (failure !== undefined) heartbeatAlert(heartbeat, job, agentId, failure);
      else
        failure = await deliverHeartbeat(
          heartbeat,
          { ...job, heartbeat: job.heartbeat },
          agentId,
          result?.response ?? '',
        );
    }
    const status = failure === undefined ? 'ok' : 'error';
    await recordOutcome(
      deps,
      job,
      entry({
        status,
        summary: summaryOf(reason, missed, result?.response ?? ''),
        error: failure ?? null,
        ...(gateEvidence === undefined ? {} : { toolCalls: gateEvidence.toolCalls }),
      }),
    );
    completed(status);
  } catch (error) {
    // The gate or run control failed before the turn: the fire still leaves its entry (an unknown cause only in the log).
    const message = publicMessage(
      maskUnknown(error, deps.log, { jobId: job.id, runId }, 'a scheduled fire failed before its turn'),
    );
    if (job.heartbeat !== null) heartbeatAlert(heartbeat, job, agentId, message);
    await recordOutcome(deps, job, entry({ status: 'error', error: message }))
      .then(() => completed('error'))
      .catch((recordError: unknown) =>
        deps.log.error({ err: recordError, jobId: job.id }, 'recording a scheduled fire failed'),
      );
  }
}
