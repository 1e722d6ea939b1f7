// The audit log port: appends content-free audit rows in batches and reads them back newest first.

/** Spec Audit row; `refs` is a scrubbed JSON string. tenantId '' marks a tenant-less (system) event. */
export interface AuditRow {
  id: string;
  tenantId: string;
  agentId: string | null;
  ts: number;
  kind: string;
  classification: string;
  action: string;
  actor: string;
  outcome: string;
  severity: string;
  traceId: string | null;
  refs: string;
}

/** Every field narrows the result; an absent field does not. */
export interface AuditFilter {
  kind?: string;
  classification?: string;
  agentId?: string;
  /** '' selects tenant-less (system) events. */
  tenant?: string;
  outcome?: string;
  /** Inclusive epoch ms. */
  since?: number;
  /** Inclusive epoch ms. */
  until?: number;
  /** The most rows returned (the caller clamps it). */
  limit: number;
  /** Only rows after this one in the order (ts descending, then id descending): the next page of a cursor. */
  before?: { ts: number; id: string };
}

/** The distinct values stored in the label columns, sorted (at most AUDIT_FACET_MAX_VALUES of each). */
export interface AuditFacets {
  kinds: string[];
  agentIds: string[];
  outcomes: string[];
  classifications: string[];
  actors: string[];
}

/** Distinct values listed per facet column. */
export const AUDIT_FACET_MAX_VALUES = 500;

export interface AuditPort {
  /** Writes every row of the batch, or none. */
  append(rows: readonly AuditRow[]): Promise<void>;
  /** Newest first: ts descending, then id descending. */
  query(filter: AuditFilter, signal?: AbortSignal): Promise<AuditRow[]>;
  /** The distinct kinds, agent ids (null left out), outcomes, classifications and actors of the stored rows. */
  facets(signal?: AbortSignal): Promise<AuditFacets>;
}
