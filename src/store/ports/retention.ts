// The retention port: deletes evidence recorded before a cut-off, a bounded batch at a time, and reports the store's size.

/**
 * The evidence tables the retention sweep prunes (obs.retentionDays); each grows with every turn and call. Learning's
 * outcome records (one per finished turn) and procedure uses are evidence; the learned procedures are not (capped per
 * agent, they outlive the turns their sourceTraceIds name). Graph runs that finished (any state but `running`) go by
 * their last update, with their node records; a running graph run and graph definitions are never evidence.
 */
export const EVIDENCE_TABLES = [
  'trajectory',
  'session_index',
  'token_usage',
  'delivery_traces',
  'diagnostic_events',
  'health_signals',
  'audit_log',
  'learning_outcomes',
  'procedure_uses',
  'graph_runs',
] as const;
export type EvidenceTable = (typeof EVIDENCE_TABLES)[number];

/** Rows up to which a table is counted on request; a larger one reports the store's estimate (rowsExact: false). */
export const EXACT_COUNT_MAX_ROWS = 100_000;

export interface EvidenceTableSize {
  table: EvidenceTable;
  rows: number;
  /** False when `rows` is the store's estimate: a table too large to count on request. */
  rowsExact: boolean;
  /** When its oldest row was recorded (a turn's start for session_index, a graph run's last update), epoch ms; null when empty. */
  oldestMs: number | null;
  /** Bytes of the table with its indexes, where the backend can tell at no cost (PostgreSQL); else null. */
  bytes: number | null;
}

export interface StorageSize {
  backend: 'sqlite' | 'postgres';
  /** The whole database: the SQLite file's pages, or PostgreSQL's pg_database_size. */
  databaseBytes: number;
  /** SQLite pages freed by deletes, reused before the file grows again; null on PostgreSQL. */
  freeBytes: number | null;
  /** In EVIDENCE_TABLES order. */
  tables: EvidenceTableSize[];
}

export interface RetentionPort {
  /**
   * Deletes at most `limit` rows of `table` recorded before `beforeMs` (exclusive), the oldest first, in one short
   * transaction; resolves to how many went. graph_runs: finished runs only, each with its node records (counted as one).
   */
  deleteBefore(table: EvidenceTable, beforeMs: number, limit: number): Promise<number>;
  size(signal?: AbortSignal): Promise<StorageSize>;
}
