// What learning offers other modules (S's skills registry, R's reflect stage, channels and graphs) and what it needs.
import type { LearningOutcome, LearningSource } from '../store/index.js';

/** A learned procedure offered to an agent like a skill (candidate, active or stale; archived ones never). */
export interface OfferedProcedure {
  id: string;
  agentId: string;
  name: string;
  description: string;
  body: string;
  state: 'candidate' | 'active' | 'stale';
  allowedTools: readonly string[];
}

/** One skill_read of a turn, as the skills registry reports it; procedureId set for a learned procedure. */
export interface SkillUse {
  agentId: string;
  sessionKey: string;
  traceId: string;
  skill: string;
  procedureId?: string;
}

/** What the skills registry reads (src/skills declares the same shape). */
export interface LearnedProcedureSource {
  offered(agentId: string): readonly OfferedProcedure[];
  recordUse(use: SkillUse): void;
}

/** One finished turn as the reflect stage reads it (src/learning/reflect declares the same shape). */
export interface SourceTrajectory {
  traceId: string;
  sessionKey: string;
  senderId: string;
  agentId: string;
  ts: number;
  outcome: LearningOutcome | null;
  toolSequence: readonly string[];
  topicKey: string;
  trusted: boolean;
  userText: string;
  answerText: string;
}

export interface CandidateProcedure {
  agentId: string;
  name: string;
  description: string;
  body: string;
  tools: readonly string[];
  toolSequence: readonly string[];
  topicKey: string;
  cardinality: number;
  synthesisAbstained: boolean;
  sourceTraceIds: readonly string[];
}

/** The ports learning gives the reflect stage. */
export interface ReflectPorts {
  readSources(agentId: string, limits: { maxTrajectories: number; maxChars: number }): Promise<SourceTrajectory[]>;
  admit(candidate: CandidateProcedure): Promise<{ id: string; created: boolean }>;
  markPassed(agentId: string, ts: number): Promise<void>;
}

/** The reflect stage as learning calls it (src/learning/reflect's Reflector); a funnel per agent passed. */
export interface ReflectorLike {
  reflect(agentId?: string): Promise<readonly object[]>;
}

/** An outcome reported from outside the turn: a channel reaction or a graph run's result. */
export type ObservedOutcome = {
  outcome: Exclude<LearningOutcome, 'unknown'> | 'unknown';
  source: Extract<LearningSource, 'reaction' | 'pipeline'>;
} & ({ traceId: string; sessionKey?: undefined } | { sessionKey: string; traceId?: undefined });
