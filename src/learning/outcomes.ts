// Turn outcomes: the hooks that watch each turn (its message, tool calls, recalled memories and skill uses), the
// record made when it finishes, and every later change of its outcome (a correction, the judge, a reaction, a
// pipeline, explicit feedback). The hooks only note and queue: no store write is awaited on the turn's path.
import type { Logger } from 'pino';
import type { LearningConfig } from '../config/index.js';
import { noFinishedTurn, sessionNotFound } from '../errors.js';
import { isWebhookChannel } from '../memory/index.js';
import { TRAJECTORY_KIND, type Recorder } from '../obs/index.js';
import { assertSessionAccess } from '../sessions/index.js';
import type { SessionCaller } from '../agents/index.js';
import type { LearningOutcome, LearningPort, LearningSource, OutcomeRecord, SessionPort } from '../store/index.js';
import type { TurnHooks } from '../turns/types.js';
import { isCorrection, toolOutcome, toolSequence, topicKey, type ToolCallSeen } from './heuristics.js';
import { createRecentMap } from '../recent-map.js';
import type { Judge } from './judge.js';
import type { Settle } from './settlement.js';
import type { ObservedOutcome, SkillUse } from './types.js';
import type { WorkQueue } from './work-queue.js';

/** Turns watched at once (open) and finished turns kept for a quick correction or feedback; oldest dropped past it. */
export const MAX_TRACKED_TURNS = 10_000;
/** Tool calls noted per turn; a turn past it is judged on its first calls. */
export const MAX_CALLS_NOTED = 1_000;
/** Recalled memory ids and skill uses noted per turn. */
export const MAX_IDS_NOTED = 256;

const SOURCE_ORDER: readonly LearningSource[] = ['tool', 'pipeline', 'correction', 'judge', 'reaction', 'explicit'];

interface OpenTurn {
  userText: string;
  calls: ToolCallSeen[];
  recalled: Set<string>;
  uses: SkillUse[];
}

/** How long the turns finishing together are gathered before one statement saves them. */
export const OUTCOME_SAVE_DELAY_MS = 250;

interface FinishedTurn {
  record: OutcomeRecord;
  uses: readonly SkillUse[];
}

export interface OutcomesDeps {
  port: LearningPort;
  sessions: Pick<SessionPort, 'get'>;
  queue: WorkQueue;
  settle: Settle;
  judge: Judge;
  recorder: Pick<Recorder, 'trajectory'>;
  config: () => LearningConfig;
  now: () => number;
  log: Logger;
}

export interface Outcomes {
  readonly hooks: Pick<TurnHooks, 'beforeModel' | 'afterTool' | 'afterTurn'>;
  noteRecalled(traceId: string, ids: readonly string[]): void;
  noteSkillUse(use: SkillUse): void;
  observe(observed: ObservedOutcome): Promise<{ traceId: string; outcome: LearningOutcome } | undefined>;
  feedback(input: {
    sessionKey: string;
    outcome: Exclude<LearningOutcome, 'unknown'>;
    caller: SessionCaller;
  }): Promise<{ sessionKey: string; traceId: string; outcome: LearningOutcome }>;
}

export function createOutcomes(deps: OutcomesDeps): Outcomes {
  const { port, queue, settle, recorder, config, now } = deps;
  const open = createRecentMap<string, OpenTurn>(MAX_TRACKED_TURNS);
  const byTrace = createRecentMap<string, FinishedTurn>(MAX_TRACKED_TURNS);
  const lastOfSession = createRecentMap<string, string>(MAX_TRACKED_TURNS);

  function turnOf(traceId: string): OpenTurn {
    let turn = open.get(traceId);
    if (turn === undefined) {
      turn = { userText: '', calls: [], recalled: new Set(), uses: [] };
      open.set(traceId, turn);
    }
    return turn;
  }

  function recordOutcome(record: OutcomeRecord): void {
    recorder.trajectory({
      sessionKey: record.sessionKey,
      traceId: record.traceId,
      kind: TRAJECTORY_KIND.learningOutcome,
      ts: now(),
      data: { ...(record.outcome === null ? {} : { outcome: record.outcome }), sources: record.sources },
    });
  }

  /**
   * The turns finished since the queued save task was queued: after OUTCOME_SAVE_DELAY_MS it saves them together (one
   * statement, one transaction), so a turn costs no store round trip of its own. The task takes its place in the queue
   * when the first of them finishes, so any later task about one of them (a correction, feedback) runs after its save.
   */
  let finishing: FinishedTurn[] = [];
  function saveFinished(record: OutcomeRecord, uses: readonly SkillUse[]) {
    finishing.push({ record, uses });
    if (finishing.length > 1) return;
    queue.push('turns', async () => {
      await new Promise((resolve) => setTimeout(resolve, OUTCOME_SAVE_DELAY_MS));
      const batch = finishing;
      finishing = [];
      await port.saveOutcomes(batch.map((turn) => turn.record));
      for (const { record, uses: used } of batch) {
        for (const use of used)
          if (use.procedureId !== undefined)
            await port.recordUse({
              procedureId: use.procedureId,
              traceId: use.traceId,
              sessionKey: use.sessionKey,
              outcome: null,
              ts: record.ts,
            });
        await settle(record, null, used);
      }
    });
  }

  /** Inside the queue: the turn as last saved, from memory or the store. */
  async function finished(traceId: string): Promise<FinishedTurn | undefined> {
    const known = byTrace.get(traceId);
    if (known !== undefined) return known;
    const record = await port.outcome(traceId);
    if (record === undefined) return undefined;
    const { agentId, sessionKey } = record;
    return { record, uses: record.skillsUsed.map((skill) => ({ agentId, sessionKey, traceId, skill })) };
  }

  async function lastTurnOf(sessionKey: string): Promise<string | undefined> {
    return lastOfSession.get(sessionKey) ?? (await port.sessionOutcomes(sessionKey, 1))[0]?.traceId;
  }

  /** Inside the queue: sets the turn's outcome from one more source and settles what it changes. */
  async function change(traceId: string, outcome: LearningOutcome, source: LearningSource) {
    const turn = await finished(traceId);
    if (turn === undefined) return undefined;
    const before = turn.record.outcome;
    const sources = SOURCE_ORDER.filter((known) => known === source || turn.record.sources.includes(known));
    const record: OutcomeRecord = { ...turn.record, outcome, sources };
    await port.saveOutcomes([record]);
    byTrace.set(traceId, { record, uses: turn.uses });
    recordOutcome(record);
    await settle(record, before, turn.uses);
    return { traceId, outcome };
  }

  function judged(traceId: string) {
    return (outcome: LearningOutcome) => {
      queue.push('judge', async () => {
        await change(traceId, outcome, 'judge');
      });
    };
  }

  return {
    hooks: {
      async beforeModel(input, ctx) {
        if (input.step > 1 || !config().enabled) return undefined;
        turnOf(ctx.traceId).userText = input.message;
        if (input.message.length > 0 && isCorrection(input.message)) {
          // Which turn came before is decided now: by the time the lane runs the task this turn may have finished.
          const { sessionKey, traceId } = ctx;
          const known = lastOfSession.get(sessionKey);
          queue.push('correction', async () => {
            const previous = known ?? (await lastTurnOf(sessionKey));
            if (previous !== undefined && previous !== traceId) await change(previous, 'corrected', 'correction');
          });
        }
        return undefined;
      },
      async afterTool(result, ctx) {
        if (!config().enabled) return;
        const turn = turnOf(ctx.traceId);
        if (turn.calls.length < MAX_CALLS_NOTED) turn.calls.push({ toolName: result.toolName, ok: result.ok });
      },
      async afterTurn(summary, ctx) {
        const turn = open.get(ctx.traceId);
        open.delete(ctx.traceId);
        // A turn handing tool calls to its caller is not finished: the caller's next request carries it on.
        if (!config().enabled || summary.finishReason === 'tool_calls') return;
        const calls = turn?.calls ?? [];
        const outcome = toolOutcome(calls, summary.finishReason) ?? null;
        const userText = turn?.userText ?? '';
        const uses = turn?.uses ?? [];
        const record: OutcomeRecord = {
          traceId: ctx.traceId,
          agentId: ctx.agentId,
          ownerId: ctx.ownerId,
          sessionKey: ctx.sessionKey,
          senderId: ctx.keyParts.userId,
          ts: now(),
          outcome,
          sources: outcome === null ? [] : ['tool'],
          toolSequence: toolSequence(calls),
          // Reflect groups only turns that called tools: the others need no key.
          topicKey: calls.length === 0 ? '' : topicKey(userText),
          trusted: !isWebhookChannel(ctx.keyParts.channelId, ctx.clientId),
          skillsUsed: [...new Set(uses.map((use) => use.skill))],
          recalledMemoryIds: [...(turn?.recalled ?? [])],
          sourceChars: userText.length,
        };
        byTrace.set(record.traceId, { record, uses });
        lastOfSession.set(record.sessionKey, record.traceId);
        recordOutcome(record);
        saveFinished(record, uses);
        if (outcome === null) deps.judge.consider(record, judged(record.traceId));
      },
    },
    noteRecalled(traceId, ids) {
      const { recalled } = turnOf(traceId);
      for (const id of ids) if (recalled.size < MAX_IDS_NOTED) recalled.add(id);
    },
    noteSkillUse(use) {
      const turn = turnOf(use.traceId);
      // A turn that reads a skill again (or reads on in it) used it once: a procedure's proof counts turns.
      if (turn.uses.length >= MAX_IDS_NOTED || turn.uses.some((noted) => noted.skill === use.skill)) return;
      turn.uses.push(use);
    },
    observe(observed) {
      // The session's last turn as of now, as for feedback: not one that finishes while the lane catches up.
      const known = observed.traceId ?? lastOfSession.get(observed.sessionKey ?? '');
      return queue.run('observe', async () => {
        const traceId = known ?? (await lastTurnOf(observed.sessionKey ?? ''));
        return traceId === undefined ? undefined : change(traceId, observed.outcome, observed.source);
      });
    },
    async feedback({ sessionKey, outcome, caller }) {
      const session = await deps.sessions.get(sessionKey);
      if (session === undefined) throw sessionNotFound(sessionKey, 'sessionKey');
      assertSessionAccess(session, caller);
      const known = lastOfSession.get(sessionKey);
      return queue.run('feedback', async () => {
        const traceId = known ?? (await lastTurnOf(sessionKey));
        const changed = traceId === undefined ? undefined : await change(traceId, outcome, 'explicit');
        if (changed === undefined) throw noFinishedTurn(sessionKey);
        return { sessionKey, ...changed };
      });
    },
  };
}
