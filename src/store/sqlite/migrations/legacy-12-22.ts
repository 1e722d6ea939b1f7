// SQLite's legacy schema history, versions 12 to 22: released, frozen, never edited (new migrations: store/shared/migrations).
import type { SqlMigration } from '../../shared/migrations/index.js';

export const LEGACY_12_TO_22: readonly SqlMigration[] = [
  {
    version: 12,
    name: 'scheduler_jobs',
    // Version 11 belongs to the memory capability. Jobs keep their next fire so a restart can tell which fires it
    // missed; run entries are read newest first per job (cron.runs).
    up: `CREATE TABLE jobs (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      owner_id TEXT NOT NULL,
      agent_id TEXT,
      message TEXT NOT NULL,
      kind TEXT NOT NULL,
      expr TEXT,
      tz TEXT NOT NULL,
      every_ms INTEGER,
      at_ms INTEGER,
      enabled INTEGER NOT NULL,
      wake_gate TEXT,
      next_run_at INTEGER,
      last_run_at INTEGER,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE job_runs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      job_id TEXT NOT NULL,
      ts INTEGER NOT NULL,
      status TEXT NOT NULL,
      duration_ms INTEGER NOT NULL,
      summary TEXT,
      error TEXT,
      tool_calls INTEGER,
      est_turns_saved INTEGER,
      root_run_id TEXT
    );
    CREATE INDEX job_runs_by_job ON job_runs (job_id, seq);`,
  },
  {
    version: 13,
    name: 'approval_requests',
    // Tool calls waiting for an operator (src/approvals); rows stay after they end, as the record of the decision.
    up: `CREATE TABLE approval_requests (
      id TEXT PRIMARY KEY,
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
      requested_at INTEGER NOT NULL,
      expires_at INTEGER,
      resolved_at INTEGER,
      resolved_by TEXT,
      reason TEXT
    );
    CREATE INDEX approval_requests_by_status ON approval_requests (status, requested_at);`,
  },
  {
    version: 14,
    name: 'run_kinds',
    // Runs come from spawns, cron fires and webhooks (run.list filters by it); rows before this were all spawns.
    up: "ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'spawn';",
  },
  {
    version: 15,
    name: 'media',
    // One record per file under media.dir (src/media); the sweep finds expired ones by expires_at.
    up: `CREATE TABLE media (
      id TEXT PRIMARY KEY,
      content_type TEXT,
      size INTEGER NOT NULL,
      saved_at INTEGER NOT NULL,
      expires_at INTEGER
    );
    CREATE INDEX media_by_expiry ON media (expires_at) WHERE expires_at IS NOT NULL;`,
  },
  {
    version: 16,
    name: 'list_page_indexes',
    // session.list pages by agent or kind, newest first, and cron.list pages one owner's jobs by name: each filter
    // reads an index range, so the first page of a large store costs a few rows, not a scan and sort of the table.
    up: `CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at);
    CREATE INDEX sessions_by_kind ON sessions (kind, updated_at);
    CREATE INDEX jobs_by_owner ON jobs (owner_id, name);`,
  },
  {
    version: 17,
    name: 'memory_vector_sketches',
    // Each stored vector keeps its 1,024-bit sketch (memory-sketch.ts), which the vector lane scans in memory before it
    // reranks by the vectors themselves; rows from before are sketched at their index's first search. The vec0
    // tables (memory_vec_<index>) of earlier versions are no longer read, and `stale` only marked them for rebuild.
    up: `ALTER TABLE memory_vectors ADD COLUMN sketch BLOB;
    ALTER TABLE memory_vector_indexes DROP COLUMN stale;`,
  },
  {
    version: 18,
    name: 'memory_owners',
    // A memory belongs to the token owning the session it was learned in (issue 30): taken from that session where it
    // records an owner, else NULL, an operator's entry (admin). The full-text scope column gains an owner token and a
    // tenant-agent-owner token (hex, as memory-lexical.ts builds them; hex(NULL) is ''), so an owner-scoped search
    // ranks only that owner's rows; the index is rebuilt from the entries for the rows stored before.
    up: `ALTER TABLE memory_entries ADD COLUMN owner_id TEXT;
    UPDATE memory_entries SET owner_id = (SELECT s.owner_id FROM sessions s WHERE s.session_key = memory_entries.source_session_key)
      WHERE source_session_key IS NOT NULL;
    CREATE INDEX memory_entries_by_owner ON memory_entries (owner_id, tenant_id, agent_id);
    DROP TRIGGER memory_entries_ai;
    CREATE TRIGGER memory_entries_ai AFTER INSERT ON memory_entries BEGIN
      INSERT INTO memory_fts (rowid, content, scope) VALUES (new.seq, new.content, 't' || hex(new.tenant_id) || ' a' || hex(new.tenant_id) || 'x' ||
        hex(new.agent_id) || ' o' || hex(new.owner_id) || ' b' || hex(new.tenant_id) || 'x' || hex(new.agent_id) || 'x' || hex(new.owner_id));
    END;
    INSERT INTO memory_fts (memory_fts) VALUES ('delete-all');
    INSERT INTO memory_fts (rowid, content, scope) SELECT seq, content, 't' || hex(tenant_id) || ' a' || hex(tenant_id) || 'x' || hex(agent_id) ||
      ' o' || hex(owner_id) || ' b' || hex(tenant_id) || 'x' || hex(agent_id) || 'x' || hex(owner_id) FROM memory_entries;`,
  },
  {
    version: 19,
    name: 'media_owners',
    // Each file is served to the token that saved it (and admins); rows from before have no owner: admins only.
    up: 'ALTER TABLE media ADD COLUMN owner_id TEXT;',
  },
  {
    version: 20,
    name: 'job_names_per_owner',
    // A job name is unique among its owner's jobs, not across the gateway: a taken name must not tell one token that
    // another has a job of that name. SQLite cannot drop a column's UNIQUE, so the table is rebuilt; (owner, name)
    // serves one owner's pages and lookups, (name, owner) an admin's pages of every job.
    up: `CREATE TABLE jobs_per_owner (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      owner_id TEXT NOT NULL,
      agent_id TEXT,
      message TEXT NOT NULL,
      kind TEXT NOT NULL,
      expr TEXT,
      tz TEXT NOT NULL,
      every_ms INTEGER,
      at_ms INTEGER,
      enabled INTEGER NOT NULL,
      wake_gate TEXT,
      next_run_at INTEGER,
      last_run_at INTEGER,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (owner_id, name)
    );
    INSERT INTO jobs_per_owner SELECT id, name, owner_id, agent_id, message, kind, expr, tz, every_ms, at_ms, enabled, wake_gate,
      next_run_at, last_run_at, last_error, created_at, updated_at FROM jobs;
    DROP TABLE jobs;
    ALTER TABLE jobs_per_owner RENAME TO jobs;
    CREATE INDEX jobs_by_name ON jobs (name, owner_id);`,
  },
  {
    version: 21,
    name: 'evidence_retention_indexes',
    // The retention sweep (obs.retentionDays) deletes the oldest evidence a small batch at a time and obs.storage.stats
    // reads each table's oldest time: both walk an index on the row's time instead of scanning the table.
    up: `CREATE INDEX trajectory_by_ts ON trajectory (ts);
    CREATE INDEX session_index_by_started ON session_index (started_at);`,
  },
  {
    version: 22,
    name: 'openai_response_status',
    // Background responses (background: true) are stored queued and move to in_progress, then an end: their status is
    // read by GET /v1/responses/:id on any replica. Responses stored before had ended, so they read completed.
    up: `ALTER TABLE openai_responses ADD COLUMN status TEXT NOT NULL DEFAULT 'completed';
    ALTER TABLE openai_responses ADD COLUMN background INTEGER NOT NULL DEFAULT 0;`,
  },
];
