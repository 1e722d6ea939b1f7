// The PostgreSQL schema of the small ports: tokens, responses, runs, approvals, jobs, media and the audit log.
// Text columns a port orders by use the "C" collation, so PostgreSQL sorts them by code point as SQLite does, whatever
// the database's default locale.
import type { SqlMigration } from '../shared/migrations/index.js';

export const CORE_MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 1,
    name: 'tokens_responses_runs',
    up: `CREATE TABLE api_tokens (
      id TEXT COLLATE "C" PRIMARY KEY,
      secret_hash TEXT NOT NULL UNIQUE,
      scopes JSONB NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE TABLE openai_responses (
      response_id TEXT PRIMARY KEY,
      session_key TEXT NOT NULL,
      client_id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      body TEXT
    );
    CREATE INDEX openai_responses_by_session ON openai_responses (session_key);
    CREATE INDEX openai_responses_by_created ON openai_responses (created_at);
    CREATE TABLE runs (
      run_id TEXT COLLATE "C" PRIMARY KEY,
      root_run_id TEXT NOT NULL,
      kind TEXT NOT NULL DEFAULT 'spawn',
      parent_key TEXT,
      session_key TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      task TEXT NOT NULL,
      status TEXT NOT NULL,
      requested_by TEXT,
      started_at BIGINT NOT NULL,
      completed_at BIGINT,
      response TEXT,
      input_tokens BIGINT,
      output_tokens BIGINT,
      cost_usd DOUBLE PRECISION,
      error TEXT,
      owner_instance TEXT,
      heartbeat_at BIGINT
    );
    CREATE INDEX runs_by_started ON runs (started_at);
    CREATE INDEX runs_by_root ON runs (root_run_id);
    CREATE INDEX runs_by_owner ON runs (status, owner_instance);`,
  },
  {
    version: 2,
    name: 'approvals_jobs_media_audit',
    up: `CREATE TABLE approval_requests (
      id TEXT COLLATE "C" PRIMARY KEY,
      agent_id TEXT NOT NULL,
      session_key TEXT NOT NULL,
      tool_name TEXT NOT NULL,
      args TEXT NOT NULL,
      args_digest TEXT NOT NULL,
      trace_id TEXT NOT NULL,
      root_run_id TEXT,
      requested_by TEXT NOT NULL,
      owner_instance TEXT NOT NULL,
      status TEXT NOT NULL,
      requested_at BIGINT NOT NULL,
      expires_at BIGINT,
      resolved_at BIGINT,
      resolved_by TEXT,
      reason TEXT
    );
    CREATE INDEX approval_requests_by_status ON approval_requests (status, requested_at);
    CREATE TABLE jobs (
      id TEXT PRIMARY KEY,
      name TEXT COLLATE "C" NOT NULL UNIQUE,
      owner_id TEXT NOT NULL,
      agent_id TEXT,
      message TEXT NOT NULL,
      kind TEXT NOT NULL,
      expr TEXT,
      tz TEXT NOT NULL,
      every_ms BIGINT,
      at_ms BIGINT,
      enabled BOOLEAN NOT NULL,
      wake_gate TEXT,
      next_run_at BIGINT,
      last_run_at BIGINT,
      last_error TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX jobs_by_owner ON jobs (owner_id, name);
    CREATE TABLE job_runs (
      seq BIGSERIAL PRIMARY KEY,
      job_id TEXT NOT NULL,
      ts BIGINT NOT NULL,
      status TEXT NOT NULL,
      duration_ms BIGINT NOT NULL,
      summary TEXT,
      error TEXT,
      tool_calls INTEGER,
      est_turns_saved INTEGER,
      root_run_id TEXT
    );
    CREATE INDEX job_runs_by_job ON job_runs (job_id, seq);
    CREATE TABLE media (
      id TEXT COLLATE "C" PRIMARY KEY,
      content_type TEXT,
      size BIGINT NOT NULL,
      saved_at BIGINT NOT NULL,
      expires_at BIGINT
    );
    CREATE INDEX media_by_expiry ON media (expires_at) WHERE expires_at IS NOT NULL;
    CREATE TABLE audit_log (
      id TEXT COLLATE "C" PRIMARY KEY,
      tenant_id TEXT NOT NULL,
      agent_id TEXT,
      ts BIGINT NOT NULL,
      kind TEXT NOT NULL,
      classification TEXT NOT NULL,
      action TEXT NOT NULL,
      actor TEXT NOT NULL,
      outcome TEXT NOT NULL,
      severity TEXT NOT NULL,
      trace_id TEXT,
      refs TEXT NOT NULL
    );
    CREATE INDEX audit_log_by_ts ON audit_log (ts, id);
    CREATE INDEX audit_log_by_tenant ON audit_log (tenant_id, ts);`,
  },
  {
    version: 9,
    name: 'job_names_per_owner',
    // A job name is unique among its owner's jobs, not across the gateway: a taken name must not tell one token that
    // another has a job of that name. (owner, name) serves one owner's pages and lookups, (name, owner) an admin's
    // pages of every job; owner ids compare bytewise, as names do, so pages follow one order on both backends.
    up: `ALTER TABLE jobs DROP CONSTRAINT jobs_name_key;
    DROP INDEX jobs_by_owner;
    ALTER TABLE jobs ALTER COLUMN owner_id TYPE TEXT COLLATE "C";
    ALTER TABLE jobs ADD CONSTRAINT jobs_owner_name_key UNIQUE (owner_id, name);
    CREATE INDEX jobs_by_name ON jobs (name, owner_id);`,
  },
  {
    version: 11,
    name: 'openai_response_status',
    // Background responses (background: true) are stored queued and move to in_progress, then an end: their status is
    // read by GET /v1/responses/:id on any replica. Responses stored before had ended, so they read completed.
    up: `ALTER TABLE openai_responses ADD COLUMN status TEXT NOT NULL DEFAULT 'completed';
    ALTER TABLE openai_responses ADD COLUMN background BOOLEAN NOT NULL DEFAULT false;`,
  },
];
