// What a turn's outcome settles, each time it is set or changed: its skill uses (learning_skill evidence), the uses of
// learned procedures (promotion and demotion), and the memories recalled into a failed turn (demoted and counted),
// with a learning_lifecycle record in the turn's trajectory when any of that moved.
import type { HealthSignalRecorder, Recorder } from '../obs/index.js';
import { SIGNAL_KIND, TRAJECTORY_KIND } from '../obs/index.js';
import type { LearningOutcome, LearningPort, MemoryPort, OutcomeRecord } from '../store/index.js';
import type { Procedures } from './procedures.js';
import type { SkillUse } from './types.js';

export interface SettlementDeps {
  port: Pick<LearningPort, 'settleUses'>;
  procedures: Pick<Procedures, 'evaluate'>;
  /** flushRecallMarks first, so a recall mark still buffered cannot make a demoted memory active again. */
  memory: Pick<MemoryPort, 'demote'> & { flushRecallMarks(): Promise<void> };
  recorder: Pick<Recorder, 'trajectory'>;
  signals: HealthSignalRecorder;
  now: () => number;
}

const isFailed = (outcome: LearningOutcome | null): boolean => outcome === 'failure' || outcome === 'corrected';

export type Settle = (
  record: OutcomeRecord,
  before: LearningOutcome | null,
  uses: readonly SkillUse[],
) => Promise<void>;

export function createSettlement({ port, procedures, memory, recorder, signals, now }: SettlementDeps): Settle {
  const trajectory = (record: OutcomeRecord, kind: string, data: Record<string, unknown>) =>
    recorder.trajectory({ sessionKey: record.sessionKey, traceId: record.traceId, kind, ts: now(), data });
  const signal = (kind: (typeof SIGNAL_KIND)[keyof typeof SIGNAL_KIND], agentId: string, count: number) => {
    const timestamp = now();
    signals.record({ kind, ts: timestamp, agentId, data: { agentId, count, timestamp } });
  };

  return async function settle(record, before, uses) {
    const { outcome, agentId } = record;
    // A use's evidence says whether it was part of a success; written when that first becomes known and again when
    // a later source turns it around (a correction of a turn judged successful).
    const wasOk = before === 'success';
    const isOk = outcome === 'success';
    if (outcome !== null && (before === null || wasOk !== isOk))
      for (const use of uses)
        trajectory(record, TRAJECTORY_KIND.learningSkill, {
          ...(use.procedureId === undefined ? {} : { skillId: use.procedureId }),
          skill: use.skill,
          ok: isOk,
        });

    let promoted = 0;
    let demoted = 0;
    // Only a turn that read a skill has uses to settle: the others cost no store call.
    const changed = uses.length === 0 ? [] : await port.settleUses(record.traceId, outcome);
    for (const procedureId of new Set(changed.map((use) => use.procedureId))) {
      const change = await procedures.evaluate(procedureId);
      if (change?.to === 'active') promoted += 1;
      else if (change?.to === 'stale' || change?.to === 'archived') demoted += 1;
    }
    if (promoted > 0) signal(SIGNAL_KIND.learningSkillPromoted, agentId, promoted);
    if (demoted > 0) signal(SIGNAL_KIND.learningSkillDemoted, agentId, demoted);

    let failuresAttributed = 0;
    if (isFailed(outcome) && !isFailed(before) && record.recalledMemoryIds.length > 0) {
      await memory.flushRecallMarks();
      await memory.demote(record.recalledMemoryIds, now());
      failuresAttributed = record.recalledMemoryIds.length;
      signal(SIGNAL_KIND.learningMemoryFailureAttributed, agentId, failuresAttributed);
    }
    if (promoted + demoted + failuresAttributed > 0)
      trajectory(record, TRAJECTORY_KIND.learningLifecycle, { promoted, demoted, failuresAttributed });
  };
}
