// The learning storage port: each finished turn's outcome record, the learned procedures reflect admits, their uses
// in turns, and each agent's last reflect pass.

export type LearningOutcome = 'success' | 'failure' | 'corrected' | 'unknown';
export type LearningSource = 'tool' | 'pipeline' | 'correction' | 'judge' | 'reaction' | 'explicit';
export type ProcedureState = 'candidate' | 'active' | 'stale' | 'archived';

/** One finished turn as learning keeps it (content-free: the texts stay in the session transcript). */
export interface OutcomeRecord {
  traceId: string;
  agentId: string;
  /** The token that owns the session, when one does. */
  ownerId: string | null;
  sessionKey: string;
  /** Who sent the turn's message (the key's user id). */
  senderId: string;
  /** When the turn finished. */
  ts: number;
  /** Null: no source resolved it (yet). */
  outcome: LearningOutcome | null;
  sources: LearningSource[];
  /** Tool names in call order, consecutive repeats collapsed, failed calls left out. */
  toolSequence: string[];
  topicKey: string;
  /** False: untrusted origin (a webhook, or a turn that saw tool output), per the memory trust rules. */
  trusted: boolean;
  /** Skills read in the turn (by name). */
  skillsUsed: string[];
  /** Memory ids recalled into the turn. */
  recalledMemoryIds: string[];
  /** Characters of the user message and answer together, so a reader can bound a pass before reading them. */
  sourceChars: number;
}

export interface LearnedProcedure {
  id: string;
  agentId: string;
  name: string;
  description: string;
  body: string;
  tools: string[];
  state: ProcedureState;
  toolSequence: string[];
  topicKey: string;
  cardinality: number;
  synthesisAbstained: boolean;
  sourceTraceIds: string[];
  successUses: number;
  failureUses: number;
  createdAt: number;
  updatedAt: number;
  /** When the procedure entered its current state (demotion counts failing sessions since then). */
  stateSince: number;
}

/** One read of a learned procedure in a turn; its outcome is the turn's, once known. */
export interface ProcedureUse {
  procedureId: string;
  traceId: string;
  sessionKey: string;
  outcome: LearningOutcome | null;
  ts: number;
}

export interface ProcedureQuery {
  agentId?: string;
  state?: ProcedureState;
  limit: number;
}

export interface UseTally {
  success: number;
  /** Failed or corrected uses. */
  failure: number;
  /** Distinct sessions with a failed or corrected use. */
  failingSessions: number;
}

/** Records one transaction of saveOutcomes holds at most. */
export const MAX_OUTCOMES_PER_SAVE = 500;

export interface LearningPort {
  /**
   * Inserts or replaces each turn's record (an outcome change writes the whole record again), in one transaction per
   * MAX_OUTCOMES_PER_SAVE records: the turns finishing together are saved together.
   */
  saveOutcomes(records: readonly OutcomeRecord[]): Promise<void>;
  outcome(traceId: string): Promise<OutcomeRecord | undefined>;
  /** The session's newest finished turns, newest first. */
  sessionOutcomes(sessionKey: string, limit: number): Promise<OutcomeRecord[]>;
  /** The agent's turns finished after `afterTs`, newest first, at most `limit`. */
  outcomesSince(agentId: string, afterTs: number, limit: number): Promise<OutcomeRecord[]>;
  /** Agents with at least one outcome record, ordered by id. */
  agentsWithOutcomes(): Promise<string[]>;

  /** Inserts or replaces the procedure with this id. */
  saveProcedure(procedure: LearnedProcedure): Promise<void>;
  procedure(id: string): Promise<LearnedProcedure | undefined>;
  /** The agent's procedure with this tool sequence and topic key, in any state. */
  procedureFor(
    agentId: string,
    toolSequence: readonly string[],
    topicKey: string,
  ): Promise<LearnedProcedure | undefined>;
  /** Ordered by agent, then creation, then id. */
  procedures(query: ProcedureQuery): Promise<LearnedProcedure[]>;

  recordUse(use: ProcedureUse): Promise<void>;
  /** Sets the outcome of every use in that turn; resolves to the uses it changed (with the new outcome). */
  settleUses(traceId: string, outcome: LearningOutcome | null): Promise<ProcedureUse[]>;
  /** The procedure's newest uses, newest first. */
  uses(procedureId: string, limit: number): Promise<ProcedureUse[]>;
  /** The procedure's settled uses at or after `sinceTs`. */
  tally(procedureId: string, sinceTs: number): Promise<UseTally>;

  /** The end of the agent's last reflect pass, or 0 when it never ran. */
  lastPass(agentId: string): Promise<number>;
  markPassed(agentId: string, ts: number): Promise<void>;
}
