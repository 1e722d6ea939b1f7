// The reflect stage's seams: the source trajectories it reads, the candidates it admits, the funnel of a pass, and
// the ports the learning module wires it to (src/learning).
import type { AgentRegistry, ToolRegistry } from '../../agents/index.js';
import type { LearningConfig } from '../../config/index.js';
import type { HealthSignalRecorder, Logger, Recorder } from '../../obs/index.js';
import type { ModelRouter } from '../../providers/index.js';

/** One finished turn; only successes are clustered, the rest are counted in the funnel. */
export interface SourceTrajectory {
  traceId: string;
  sessionKey: string;
  senderId: string;
  agentId: string;
  /** Epoch ms the turn finished. */
  ts: number;
  outcome: 'success' | 'failure' | 'corrected' | 'unknown' | null;
  /** Tool names in call order, consecutive repeats collapsed, failed calls left out. */
  toolSequence: readonly string[];
  /** Computed by the learning module from the user's message (src/learning/README.md); reflect only groups by it. */
  topicKey: string;
  /** False: an untrusted origin (the memory trust rules, src/memory/trust.ts); dropped and counted. */
  trusted: boolean;
  /** Read from the session transcript, for synthesis only; never logged or recorded. */
  userText: string;
  answerText: string;
}

/** A learned procedure to store as a candidate: a SKILL.md-style body (goal, steps, tools) and its proof. */
export interface CandidateProcedure {
  agentId: string;
  name: string;
  description: string;
  body: string;
  /** The tools the procedure uses (each exists and is allowed to the agent). */
  tools: readonly string[];
  /** The cluster's normalized tool sequence: with topicKey, what deduplicates candidates. */
  toolSequence: readonly string[];
  topicKey: string;
  /** Distinct (sessionKey, senderId) pairs that corroborate it; at least 2. */
  cardinality: number;
  /** True when the agent's model is small or nano tier and the body was written without it. */
  synthesisAbstained: boolean;
  sourceTraceIds: readonly string[];
}

export interface ReflectPorts {
  /** Newest first, at most maxTrajectories and maxChars of userText+answerText in total; since the agent's last pass. */
  readSources(agentId: string, limits: { maxTrajectories: number; maxChars: number }): Promise<SourceTrajectory[]>;
  /**
   * Stores a candidate (deduplicated by agentId + toolSequence + topicKey: an existing one is refreshed, not doubled)
   * and applies the per-agent cap (lowest-proof candidates archived first).
   */
  admit(candidate: CandidateProcedure): Promise<{ id: string; created: boolean }>;
  /** Marks the agent's pass done up to `ts` (so the next pass reads only newer sources). */
  markPassed(agentId: string, ts: number): Promise<void>;
}

/** Why a pass admitted what it did; the precedence when several apply is in README.md. */
export const ADMISSION_OUTCOMES = [
  'admitted',
  'no_successes',
  'untrusted_origin',
  'uncorroborated',
  'empty_reflection',
  'rejected_name_length',
  'rejected_validation',
] as const;
export type AdmissionOutcome = (typeof ADMISSION_OUTCOMES)[number];

/** The catalogue's reflect:funnel, one per agent pass: counts only. */
export interface ReflectFunnel {
  agentId: string;
  /** Corroborated clusters that got a procedure (the model's, or the deterministic one when synthesis abstained). */
  synthesized: number;
  /** Synthesized procedures whose name fits and whose tools exist and are allowed. */
  validated: number;
  /** Validated procedures stored (new or refreshed). */
  admitted: number;
  /** The largest distinct (session, sender) count of a cluster; 1: a single uncorroborated instance. */
  maxClusterCardinality: number;
  /** Topic keys among the clustered sources. */
  distinctTopicKeys: number;
  /** Sources of an untrusted origin, dropped before clustering. */
  untrustedDrops: number;
  /** Synthesized names over 64 characters. */
  nameLengthRejections: number;
  /** Trusted sources left out of clustering: not a success, or a success that called no tool. */
  skipped: number;
  /** Sources read this pass (within learning.maxSourceTrajectories). */
  sourceTrajectoryCount: number;
  /** Characters of user message and answer of the sources read (within learning.maxSourceChars). */
  totalSourceChars: number;
  admissionOutcome: AdmissionOutcome;
  timestamp: number;
}

export interface Reflector {
  /** One pass per agent (all agents with learning sources when agentId is absent); one reflect:funnel each. */
  reflect(agentId?: string): Promise<ReflectFunnel[]>;
}

export interface ReflectDeps {
  ports: ReflectPorts;
  /** Resolves once the outcome writes queued so far are stored: a pass reads turns that just finished too. */
  settled?: () => Promise<void>;
  /** The model router the turns use: the agent's model, its catalog tier, and the synthesis call. */
  router: Pick<ModelRouter, 'stream' | 'resolve' | 'entry'>;
  agents: Pick<AgentRegistry, 'get' | 'list'>;
  /** What validation checks a procedure's tools against: the tools an agent's list gives a turn now. */
  tools: Pick<ToolRegistry, 'forTurn'>;
  /** Read at each pass, so a config reload applies to the next one. */
  config: () => Pick<LearningConfig, 'maxSourceTrajectories' | 'maxSourceChars'>;
  /** learning_synthesis records into the source sessions' trajectories. */
  recorder: Pick<Recorder, 'trajectory'>;
  /** reflect.funnel and reflect.admitted; absent: no signals (the funnels are still returned). */
  signals?: HealthSignalRecorder;
  now: () => number;
  log: Logger;
}
