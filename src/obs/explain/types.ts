// The IncidentReport returned by obs.explain (spec: "IncidentReport") and the session_not_found marker.
import type { Severity } from '../evidence/kinds.js';

export type ExplainDepth = 'summary' | 'full';

export interface ToolStat {
  ok: number;
  failed: number;
  topErrorKind: string | null;
}

/**
 * A failed tool call, or a failed model call (DESIGN §3 "upstream failures"): then toolName is `provider/model`,
 * errorKind the provider error kind (server, rate_limit, auth …), and provider, model, status, message and step are set.
 */
export interface FailureEntry {
  seq: number;
  toolName: string;
  errorKind: string;
  resultDigest: string;
  resultBytes: number;
  /**
   * A tool's is built from the recorded counts and digest only (raw tool output is never recorded, so never shown);
   * a model's names its status and quotes the upstream's message.
   */
  errorPreview: string;
  provider?: string;
  model?: string;
  /** The HTTP status the provider answered, when it answered one. */
  status?: number;
  /** The upstream's own error message, secrets masked, at most 500 characters. */
  message?: string;
  step?: number;
}

export interface BreakerEntry {
  seq: number;
  event: string;
  toolName: string | null;
}

export interface OffloadEntry {
  seq: number;
  toolName: string | null;
  diskPathRel: string;
  bytes: number;
  digest: string | null;
  resolved: boolean;
}

export interface RootCause {
  code: string;
  detail: string;
  suggestedNextSteps: string[];
  /** The numbers behind the verdict, when the spec asks for them (terminal_drive_evicted, prompt_timeout). */
  evidence?: Record<string, string | number | boolean>;
}

export interface Truncation {
  field: string;
  kept: number;
  total: number;
}

export interface ContextBudgetBlock {
  windowTokens: number;
  rawContextWindowTokens: number;
  windowCapSource: string;
  systemTokens: number;
  freshTailTokens: number;
  budgetedHistoryTokens: number;
  keptCount: number;
  assembledInputTokens: number;
  outputHeadroom: number;
  verdict: string;
}

export interface RecallBlock {
  recalls: number;
  zeroHits: number;
  lastLanes: number;
  lastFinalCount: number;
  rerankerAvailable: boolean;
  crossUserRecalls?: number;
  lastCrossUserCount?: number;
}

export interface VoiceBlock {
  provider: string;
  keyless: boolean;
  model?: string;
  durationMs?: number;
  costUsd?: number;
  source?: string;
  outcome: string;
  errorKind?: string;
}

export interface LearningBlock {
  outcomeResolved: boolean;
  outcome?: string;
  sources: string[];
  skillsUsed: number;
  skillFailures: number;
  synthesisAbstained: boolean;
  skillsPromoted?: number;
  skillsDemoted?: number;
  failuresAttributed?: number;
}

export interface OrchestrateEntry {
  runId: string;
  leaseId?: string;
  outcome: 'success' | 'failure';
  durationMs: number;
  exitCode: number;
  failureClass?: string;
  toolCalls: { tool: string; capability: string; decision: string; count: number }[];
  resultRefs: { count: number; bytes: number };
  savings?: { estSavedTokens: number; savedRatio: number };
}

export interface CronWakeGateBlock {
  jobId: string;
  wake: boolean;
  durationMs: number;
  toolCalls: number;
  estTurnsSaved: number;
}

export interface DivergentTool {
  tool: string;
  rollup: { ok: number; failed: number };
  trajectory: { ok: number; failed: number };
}

export interface CoverageBlock {
  trajectory: { found: boolean; records: number };
  rollup: { present: boolean };
  offloads: { pointersResolved: number; pointersTotal: number };
  sources: { session: string; trajectory: string };
  toolStats: { reconciled: boolean; rollupSource: string; divergentTools: DivergentTool[] };
}

export interface SpawnTreeEntry {
  runId: string;
  parentKey: string | null;
  sessionKey: string;
  agentId: string;
  status: string;
  depth: number;
}

export interface IncidentReport {
  schemaVersion: 1;
  sessionKey: string;
  traceId: string | null;
  agentId: string | null;
  channel: string | null;
  outcome: { endReason: string; degraded: boolean; severity: Severity };
  cost: { costUsd: number; totalTokens: number; cacheReadRatio: number };
  timing: { durationMs: number; turnCount: number };
  toolStats: Record<string, ToolStat>;
  failures: FailureEntry[];
  breakerTimeline: BreakerEntry[];
  offloads: OffloadEntry[];
  summary: string;
  likelyRootCause: RootCause;
  suggestedNextSteps: string[];
  truncations: Truncation[];
  contextBudget?: ContextBudgetBlock;
  recall?: RecallBlock;
  voice?: VoiceBlock;
  learning?: LearningBlock;
  orchestrate?: OrchestrateEntry[];
  cronWakeGate?: CronWakeGateBlock;
  coverage?: CoverageBlock;
  /** The durable runs of the session's spawn tree (spec rule 3: a rootRunId "renders the run spawn tree"). */
  spawnTree?: { rootRunId: string; runs: SpawnTreeEntry[] };
}

/** What obs.explain returns for a reference that resolves to no recorded session. */
export interface SessionNotFound {
  schemaVersion: 1;
  marker: 'session_not_found';
  /** Which input missed, and its value. */
  reference: { kind: 'sessionKey' | 'traceId' | 'rootRunId'; value: string };
  detail: string;
  suggestedNextSteps: string[];
}

export type ExplainResult = IncidentReport | SessionNotFound;
