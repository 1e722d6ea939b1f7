// What learning offers other modules (S's skills registry, R's reflect stage, channels and graphs) and what it needs.
import type { LearnedProcedureSource } from '../skills/types.js';
import type { LearningOutcome, LearningSource } from '../store/index.js';

export type { LearnedProcedureSource, OfferedProcedure } from '../skills/types.js';
export type { CandidateProcedure, ReflectPorts, Reflector, SourceTrajectory } from './reflect/types.js';

/** One skill_read of a turn, as the skills registry reports it; procedureId set for a learned procedure. */
export type SkillUse = Parameters<LearnedProcedureSource['recordUse']>[0];

/** An outcome reported from outside the turn: a channel reaction or a graph run's result. */
export type ObservedOutcome = {
  outcome: Exclude<LearningOutcome, 'unknown'> | 'unknown';
  source: Extract<LearningSource, 'reaction' | 'pipeline'>;
} & ({ traceId: string; sessionKey?: undefined } | { sessionKey: string; traceId?: undefined });
