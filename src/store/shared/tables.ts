// The tables the shared ports read and write, as Kysely sees them: one row type each, valid on both dialects.
import type { Generated } from 'kysely';
import type { EvidenceTable } from '../ports/retention.js';
import type { CapabilityTables, Flag } from './tables-capabilities.js';

/**
 * Where each evidence table's rows are stored: a turn's index entry and its steps share one `turns` row, and the
 * trajectory records outside any turn's row are `loose_records` (the old names are views for readers of raw SQL).
 */
export const EVIDENCE_SOURCES: Record<EvidenceTable, string> = {
  trajectory: 'loose_records',
  session_index: 'turns',
  token_usage: 'token_usage',
  delivery_traces: 'delivery_traces',
  diagnostic_events: 'diagnostic_events',
  health_signals: 'health_signals',
  audit_log: 'audit_log',
  learning_outcomes: 'learning_outcomes',
  procedure_uses: 'procedure_uses',
  graph_runs: 'graph_runs',
};

/**
 * When each evidence table's row was recorded (a turn's start for the session index, a graph run's last update); every
 * one is indexed.
 */
export const EVIDENCE_TIME_COLUMNS: Record<EvidenceTable, string> = {
  trajectory: 'ts',
  session_index: 'started_at',
  token_usage: 'ts',
  delivery_traces: 'ts',
  diagnostic_events: 'ts',
  health_signals: 'ts',
  audit_log: 'ts',
  learning_outcomes: 'ts',
  procedure_uses: 'ts',
  graph_runs: 'updated_at',
};

export type { Flag } from './tables-capabilities.js';

export interface Tables extends CapabilityTables {
  sessions: {
    session_key: string;
    agent_id: string;
    tenant_id: string;
    kind: string;
    created_at: number;
    updated_at: number;
    metadata: string;
    message_count: number;
    owner_id: string | null;
    usage_total_tokens: number;
    usage_total_cost: number;
    usage_steps: number;
    usage_turns: number;
    has_usage: Flag;
    last_requested_by: string | null;
    expired_at: number | null;
    archived_at: number | null;
    channel_id: string | null;
    last_outcome: string | null;
  };
  session_messages: {
    id: Generated<number>;
    session_key: string;
    role: string;
    content: string;
    data: string | null;
    created_at: number;
  };
  api_tokens: {
    id: string;
    secret_hash: string;
    /** TEXT holding JSON on SQLite; JSONB on PostgreSQL, which reads back parsed. */
    scopes: unknown;
    created_at: string;
    revoked_at: string | null;
  };
  openai_responses: {
    response_id: string;
    session_key: string;
    client_id: string;
    created_at: number;
    body: string | null;
    status: string;
    background: Flag;
  };
  media: {
    id: string;
    content_type: string | null;
    size: number;
    saved_at: number;
    expires_at: number | null;
    owner_id: string | null;
  };
  jobs: {
    id: string;
    name: string;
    owner_id: string;
    agent_id: string | null;
    message: string;
    kind: string;
    expr: string | null;
    tz: string;
    every_ms: number | null;
    at_ms: number | null;
    enabled: Flag;
    wake_gate: string | null;
    /** JSON of the heartbeat target (shared migration 27); null for other jobs. */
    heartbeat: string | null;
    next_run_at: number | null;
    last_run_at: number | null;
    last_error: string | null;
    created_at: number;
    updated_at: number;
  };
  job_runs: {
    seq: Generated<number>;
    job_id: string;
    ts: number;
    status: string;
    duration_ms: number;
    summary: string | null;
    error: string | null;
    tool_calls: number | null;
    est_turns_saved: number | null;
    root_run_id: string | null;
  };
  approval_requests: {
    id: string;
    agent_id: string;
    session_key: string;
    tool_name: string;
    /** The arguments as the JSON text they were given as (JSONB would reorder keys and drop duplicates). */
    args: string;
    args_digest: string;
    trace_id: string;
    root_run_id: string | null;
    requested_by: string;
    owner_instance: string;
    status: string;
    requested_at: number;
    expires_at: number | null;
    resolved_at: number | null;
    resolved_by: string | null;
    reason: string | null;
  };
  runs: {
    run_id: string;
    root_run_id: string;
    kind: string;
    parent_key: string | null;
    session_key: string;
    agent_id: string;
    task: string;
    status: string;
    requested_by: string | null;
    started_at: number;
    completed_at: number | null;
    response: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
    cost_usd: number | null;
    error: string | null;
    owner_instance: string | null;
    heartbeat_at: number | null;
  };
  audit_log: {
    id: string;
    tenant_id: string;
    agent_id: string | null;
    ts: number;
    kind: string;
    classification: string;
    action: string;
    actor: string;
    outcome: string;
    severity: string;
    trace_id: string | null;
    refs: string;
  };
  delivery_traces: {
    id: Generated<number>;
    ts: number;
    channel_id: string;
    channel_type: string;
    session_key: string | null;
    trace_id: string | null;
    outcome: 'success' | 'failure';
    latency_ms: number;
    error_kind: string | null;
  };
  diagnostic_events: {
    id: Generated<number>;
    ts: number;
    category: string;
    kind: string;
    count: number;
    severity: string;
    data: string;
  };
  channel_activity: {
    channel_id: string;
    channel_type: string;
    last_active_at: number;
    messages_sent: number;
    messages_received: number;
  };
  health_signals: {
    id: Generated<number>;
    ts: number;
    kind: string;
    agent_id: string | null;
    root_run_id: string | null;
    severity: string;
    data: string;
  };
  token_usage: {
    id: Generated<number>;
    ts: number;
    agent_id: string;
    session_key: string;
    provider: string;
    model: string;
    input_tokens: number;
    output_tokens: number;
    cache_read_tokens: number;
    cache_write_tokens: number;
    cost_usd: number;
  };
  /** One row per turn: its index entry and its steps, `[kind, ts, data]` each, as one JSON array text. */
  turns: {
    trace_id: string;
    session_key: string;
    agent_id: string;
    channel: string;
    message_id: string | null;
    root_run_id: string | null;
    end_reason: string | null;
    degraded: Flag;
    started_at: number;
    ended_at: number | null;
    day: string;
    synthetic: Flag;
    steps: string;
  };
  /** Trajectory records written outside any turn's row (late ones, fixtures), in append order. */
  loose_records: {
    id: Generated<number>;
    session_key: string;
    trace_id: string;
    ts: number;
    kind: string;
    data: string;
  };
  memory_embedding_cache: {
    model: string;
    content_hash: string;
    /** The vector's f32 bytes (BLOB) on SQLite; REAL[] on PostgreSQL. */
    vector: unknown;
    created_at: number;
    last_used_at: number;
  };
}
