// The PostgreSQL schema of turn evidence (trajectory, session index, token usage) and the obs counters.
import type { SqlMigration } from '../shared/migrations/index.js';

export const EVIDENCE_MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 4,
    name: 'evidence_and_obs',
    // trajectory_seqs holds each session's last trajectory seq: a batch takes the next numbers with one upsert, whose
    // row lock keeps two replicas from handing out the same seq. Text columns the reports group or order by use the
    // "C" collation, so both backends order them by code point.
    up: `CREATE TABLE trajectory (
      id BIGSERIAL PRIMARY KEY,
      session_key TEXT COLLATE "C" NOT NULL,
      trace_id TEXT COLLATE "C" NOT NULL,
      seq BIGINT NOT NULL,
      ts BIGINT NOT NULL,
      kind TEXT COLLATE "C" NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX trajectory_by_session ON trajectory (session_key, seq);
    CREATE INDEX trajectory_by_trace ON trajectory (trace_id);
    CREATE INDEX trajectory_by_kind ON trajectory (kind, id);
    CREATE TABLE trajectory_seqs (
      session_key TEXT COLLATE "C" PRIMARY KEY,
      last_seq BIGINT NOT NULL
    );
    CREATE TABLE session_index (
      trace_id TEXT COLLATE "C" PRIMARY KEY,
      session_key TEXT COLLATE "C" NOT NULL,
      agent_id TEXT COLLATE "C" NOT NULL,
      channel TEXT COLLATE "C" NOT NULL,
      message_id TEXT COLLATE "C",
      root_run_id TEXT COLLATE "C",
      end_reason TEXT COLLATE "C",
      degraded BOOLEAN NOT NULL DEFAULT false,
      started_at BIGINT NOT NULL,
      ended_at BIGINT,
      day TEXT COLLATE "C" NOT NULL,
      synthetic BOOLEAN NOT NULL DEFAULT false
    );
    CREATE INDEX session_index_by_day ON session_index (day, started_at);
    CREATE INDEX session_index_by_started ON session_index (started_at);
    CREATE INDEX session_index_by_session ON session_index (session_key);
    CREATE INDEX session_index_by_root ON session_index (root_run_id);
    CREATE INDEX session_index_by_message ON session_index (message_id);
    CREATE TABLE token_usage (
      id BIGSERIAL PRIMARY KEY,
      ts BIGINT NOT NULL,
      agent_id TEXT COLLATE "C" NOT NULL,
      session_key TEXT COLLATE "C" NOT NULL,
      provider TEXT COLLATE "C" NOT NULL,
      model TEXT COLLATE "C" NOT NULL,
      input_tokens BIGINT NOT NULL,
      output_tokens BIGINT NOT NULL,
      cache_read_tokens BIGINT NOT NULL,
      cache_write_tokens BIGINT NOT NULL,
      cost_usd DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX token_usage_by_ts ON token_usage (ts);
    CREATE TABLE delivery_traces (
      id BIGSERIAL PRIMARY KEY,
      ts BIGINT NOT NULL,
      channel_id TEXT COLLATE "C" NOT NULL,
      channel_type TEXT NOT NULL,
      session_key TEXT,
      trace_id TEXT,
      outcome TEXT NOT NULL,
      latency_ms BIGINT NOT NULL,
      error_kind TEXT
    );
    CREATE INDEX delivery_traces_by_ts ON delivery_traces (ts);
    CREATE TABLE diagnostic_events (
      id BIGSERIAL PRIMARY KEY,
      ts BIGINT NOT NULL,
      category TEXT COLLATE "C" NOT NULL,
      kind TEXT COLLATE "C" NOT NULL,
      count BIGINT NOT NULL,
      severity TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX diagnostic_events_by_ts ON diagnostic_events (ts);
    CREATE INDEX diagnostic_events_by_category ON diagnostic_events (category, ts);
    CREATE TABLE channel_activity (
      channel_id TEXT COLLATE "C" PRIMARY KEY,
      channel_type TEXT NOT NULL,
      last_active_at BIGINT NOT NULL,
      messages_sent BIGINT NOT NULL,
      messages_received BIGINT NOT NULL
    );
    CREATE TABLE health_signals (
      id BIGSERIAL PRIMARY KEY,
      ts BIGINT NOT NULL,
      kind TEXT COLLATE "C" NOT NULL,
      agent_id TEXT,
      root_run_id TEXT,
      severity TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX health_signals_by_ts ON health_signals (ts);
    CREATE INDEX health_signals_by_kind ON health_signals (kind, ts);`,
  },
  {
    version: 10,
    name: 'evidence_retention_indexes',
    // The retention sweep (obs.retentionDays) deletes the oldest trajectory rows a small batch at a time and
    // obs.storage.stats reads the oldest time: both walk this index instead of scanning the table.
    up: 'CREATE INDEX trajectory_by_ts ON trajectory (ts);',
  },
];
