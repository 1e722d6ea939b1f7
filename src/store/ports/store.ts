// One backend's ports together: what app.ts opens at startup and closes last at shutdown.
import type { ApprovalPort } from './approvals.js';
import type { AuditPort } from './audit.js';
import type { A2aTaskPort } from './a2a-tasks.js';
import type { BudgetUsagePort } from './budgets.js';
import type { EvidencePort } from './evidence.js';
import type { GraphPort } from './graphs.js';
import type { MemoryPort } from './memory.js';
import type { JobPort } from './jobs.js';
import type { LearningPort } from './learning.js';
import type { MediaPort } from './media.js';
import type { ObsPort } from './obs.js';
import type { ResponsePort } from './responses.js';
import type { RetentionPort } from './retention.js';
import type { RunPort } from './runs.js';
import type { SessionPort } from './sessions.js';
import type { TokenPort } from './tokens.js';

export interface StorePorts {
  sessions: SessionPort;
  runs: RunPort;
  tokens: TokenPort;
  responses: ResponsePort;
  audit: AuditPort;
  evidence: EvidencePort;
  obs: ObsPort;
  memory: MemoryPort;
  approvals: ApprovalPort;
  jobs: JobPort;
  media: MediaPort;
  learning: LearningPort;
  graphs: GraphPort;
  /** The in-process budget ledger's settled use (src/budgets); unused under coordination: redis. */
  budgets: BudgetUsagePort;
  /** The A2A tasks (src/a2a). */
  a2aTasks: A2aTaskPort;
  retention: RetentionPort;
  /**
   * Answers once the backend can be reached (a PostgreSQL round trip), for /ready; absent, the store is in process
   * (SQLite) and reachable whenever the gateway runs.
   */
  ping?(): Promise<void>;
  /**
   * Writes what the backend still holds (queued session appends and usage, the writer thread's batches), then
   * releases it. Writers outside the store (the evidence, audit and obs queues) must have flushed before.
   */
  close(): Promise<void>;
}
