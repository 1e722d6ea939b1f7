// The run storage port: the durable record of runs (spawned sub-agents, cron fires, webhooks, background responses), their owner and heartbeat.

/** `revoked`: run.kill or lease.revoke stopped the run's tree (spec: autonomy run states). */
export type RunStatus = 'running' | 'completed' | 'failed' | 'orphaned' | 'revoked';

export const RUN_STATUSES = [
  'running',
  'completed',
  'failed',
  'orphaned',
  'revoked',
] as const satisfies readonly RunStatus[];

/**
 * What started a run; `response` is a /v1 response created with `background: true`, `orchestrate` an agent's script,
 * `graph` a graph run (its root) or one of its agent nodes' turns (a child of it), `channel` a chat message's turn
 * (src/channels), `a2a` a task an A2A client sent (src/a2a).
 */
export type RunKind = 'spawn' | 'cron' | 'webhook' | 'response' | 'orchestrate' | 'graph' | 'channel' | 'a2a';

export const RUN_KINDS = [
  'spawn',
  'cron',
  'webhook',
  'response',
  'orchestrate',
  'graph',
  'channel',
  'a2a',
] as const satisfies readonly RunKind[];

/** The error a run gets when recovery finds it `running` under an instance that is gone. */
export const ORPHANED_RUN_ERROR = 'The gateway stopped before the run finished';

export interface RunRecord {
  runId: string;
  rootRunId: string;
  kind: RunKind;
  parentKey: string | null;
  sessionKey: string;
  agentId: string;
  task: string;
  status: RunStatus;
  requestedBy: string | null;
  startedAt: number;
  completedAt: number | null;
  response: string | null;
  tokensUsed: { input: number; output: number; total: number } | null;
  costUsd: number | null;
  error: string | null;
  /** The gateway instance executing the run; null for runs recorded before instances existed. */
  ownerInstance: string | null;
  /** Epoch ms of the owner's last sign of life for this run. */
  heartbeatAt: number | null;
}

export type RunOutcome = Pick<RunRecord, 'status' | 'completedAt' | 'response' | 'tokensUsed' | 'costUsd' | 'error'>;

export interface RunFilter {
  status?: RunStatus;
  sinceMs?: number;
  rootRunId?: string;
  kind?: RunKind;
  limit?: number;
}

export interface RunPort {
  create(run: RunRecord): Promise<void>;
  /** Rejects with GatewayError `not_found` for an unknown run. */
  finish(runId: string, outcome: RunOutcome): Promise<void>;
  get(runId: string): Promise<RunRecord | undefined>;
  /** Newest start first; at most `limit` runs when given. */
  list(filter: RunFilter, signal?: AbortSignal): Promise<RunRecord[]>;
  /** Sets `heartbeatAt` of every `running` run owned by `ownerInstance`; resolves to how many. */
  heartbeat(ownerInstance: string, now: number): Promise<number>;
  /** The distinct owner instances of `running` runs (null for runs without one). */
  runningOwners(): Promise<(string | null)[]>;
  /**
   * Marks `orphaned` (with ORPHANED_RUN_ERROR unless the run has an error) every `running` run whose owner is in
   * `owners` (null matches runs without an owner); resolves to how many.
   */
  markOrphaned(owners: readonly (string | null)[], now: number): Promise<number>;
}
