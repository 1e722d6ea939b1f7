// SQLite's legacy schema history, versions 1 to 11: released, frozen, never edited (new migrations: store/shared/migrations).
import type { SqlMigration } from '../../shared/migrations/index.js';

export const LEGACY_1_TO_11: readonly SqlMigration[] = [
  {
    version: 1,
    name: 'api_tokens',
    up: `CREATE TABLE api_tokens (
      id TEXT PRIMARY KEY,
      secret_hash TEXT NOT NULL UNIQUE,
      scopes TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    );`,
  },
  {
    version: 2,
    name: 'sessions_and_runs',
    up: `CREATE TABLE sessions (
      session_key TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      message_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_updated ON sessions (updated_at);
    CREATE TABLE session_messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_key TEXT NOT NULL REFERENCES sessions (session_key) ON DELETE CASCADE,
      role TEXT NOT NULL,
      content TEXT NOT NULL,
      data TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX session_messages_by_session ON session_messages (session_key, id);
    CREATE VIRTUAL TABLE session_messages_fts USING fts5 (content, session_key UNINDEXED, content='session_messages', content_rowid='id');
    CREATE TRIGGER session_messages_ai AFTER INSERT ON session_messages BEGIN
      INSERT INTO session_messages_fts (rowid, content, session_key) VALUES (new.id, new.content, new.session_key);
    END;
    CREATE TRIGGER session_messages_ad AFTER DELETE ON session_messages BEGIN
      INSERT INTO session_messages_fts (session_messages_fts, rowid, content, session_key) VALUES ('delete', old.id, old.content, old.session_key);
    END;
    CREATE TABLE runs (
      run_id TEXT PRIMARY KEY,
      root_run_id TEXT NOT NULL,
      parent_key TEXT,
      session_key TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      task TEXT NOT NULL,
      status TEXT NOT NULL,
      requested_by TEXT,
      started_at INTEGER NOT NULL,
      completed_at INTEGER,
      response TEXT,
      input_tokens INTEGER,
      output_tokens INTEGER,
      cost_usd REAL,
      error TEXT
    );
    CREATE INDEX runs_by_status ON runs (status);
    CREATE TABLE approval_decisions (
      session_key TEXT NOT NULL,
      tool_name TEXT NOT NULL,
      approved INTEGER NOT NULL,
      decided_at INTEGER NOT NULL,
      PRIMARY KEY (session_key, tool_name)
    );`,
  },
  {
    version: 3,
    name: 'trajectory_and_usage',
    up: `CREATE TABLE trajectory (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_key TEXT NOT NULL,
      trace_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      ts INTEGER NOT NULL,
      kind TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX trajectory_by_session ON trajectory (session_key, seq);
    CREATE INDEX trajectory_by_trace ON trajectory (trace_id);
    CREATE TABLE session_index (
      trace_id TEXT PRIMARY KEY,
      session_key TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      channel TEXT NOT NULL,
      message_id TEXT,
      root_run_id TEXT,
      end_reason TEXT,
      degraded INTEGER NOT NULL DEFAULT 0,
      started_at INTEGER NOT NULL,
      ended_at INTEGER,
      day TEXT NOT NULL,
      synthetic INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX session_index_by_day ON session_index (day, started_at);
    CREATE INDEX session_index_by_session ON session_index (session_key);
    CREATE TABLE token_usage (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      ts INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      session_key TEXT NOT NULL,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL,
      cache_read_tokens INTEGER NOT NULL,
      cache_write_tokens INTEGER NOT NULL,
      cost_usd REAL NOT NULL
    );
    CREATE INDEX token_usage_by_ts ON token_usage (ts);`,
  },
  {
    version: 4,
    name: 'openai_responses',
    // POST /v1/responses: which session a response id continues (previous_response_id) and who may continue it.
    up: `CREATE TABLE openai_responses (
      response_id TEXT PRIMARY KEY,
      session_key TEXT NOT NULL,
      client_id TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX openai_responses_by_session ON openai_responses (session_key);`,
  },
  {
    version: 5,
    name: 'observability',
    up: `CREATE TABLE delivery_traces (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      ts INTEGER NOT NULL,
      channel_id TEXT NOT NULL,
      channel_type TEXT NOT NULL,
      session_key TEXT,
      trace_id TEXT,
      outcome TEXT NOT NULL,
      latency_ms INTEGER NOT NULL,
      error_kind TEXT
    );
    CREATE INDEX delivery_traces_by_ts ON delivery_traces (ts);
    CREATE TABLE diagnostic_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      ts INTEGER NOT NULL,
      category TEXT NOT NULL,
      kind TEXT NOT NULL,
      count INTEGER NOT NULL,
      severity TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX diagnostic_events_by_ts ON diagnostic_events (ts);
    CREATE INDEX diagnostic_events_by_category ON diagnostic_events (category, ts);
    CREATE TABLE channel_activity (
      channel_id TEXT PRIMARY KEY,
      channel_type TEXT NOT NULL,
      last_active_at INTEGER NOT NULL,
      messages_sent INTEGER NOT NULL,
      messages_received INTEGER NOT NULL
    );
    CREATE TABLE audit_log (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL,
      agent_id TEXT,
      ts INTEGER NOT NULL,
      kind TEXT NOT NULL,
      classification TEXT NOT NULL,
      action TEXT NOT NULL,
      actor TEXT NOT NULL,
      outcome TEXT NOT NULL,
      severity TEXT NOT NULL,
      trace_id TEXT,
      refs TEXT NOT NULL
    );
    CREATE INDEX audit_log_by_ts ON audit_log (ts);
    CREATE INDEX audit_log_by_tenant ON audit_log (tenant_id, ts);
    CREATE TABLE health_signals (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      ts INTEGER NOT NULL,
      kind TEXT NOT NULL,
      agent_id TEXT,
      root_run_id TEXT,
      severity TEXT NOT NULL,
      data TEXT NOT NULL
    );
    CREATE INDEX health_signals_by_ts ON health_signals (ts);
    CREATE INDEX health_signals_by_kind ON health_signals (kind, ts);
    CREATE INDEX session_index_by_root ON session_index (root_run_id);
    CREATE INDEX session_index_by_message ON session_index (message_id);
    CREATE INDEX trajectory_by_kind ON trajectory (kind, id);
    CREATE INDEX runs_by_root ON runs (root_run_id);`,
  },
  {
    version: 6,
    name: 'session_owners',
    // DESIGN §3 "who may use a session": the creating token id. Older rows take the last requester they
    // recorded; without one the owner stays NULL, which only admin callers reach. CASE keeps malformed
    // metadata (never written by the gateway, but possible by hand) from failing the migration.
    up: `ALTER TABLE sessions ADD COLUMN owner_id TEXT;
    UPDATE sessions SET owner_id = CASE WHEN json_valid(metadata) THEN
      CASE WHEN json_type(metadata, '$.requestedBy') = 'text' THEN json_extract(metadata, '$.requestedBy') END
    END;
    CREATE INDEX sessions_by_owner ON sessions (owner_id, updated_at);`,
  },
  {
    version: 7,
    name: 'run_owners_and_session_usage',
    // Runs: the instance executing them and its last heartbeat, so recovery only orphans runs of dead instances.
    // Sessions: usage totals and the last requester leave the metadata JSON for columns one UPDATE can add to;
    // existing totals are carried over (numbers only, as they were read) and removed from the JSON.
    up: `ALTER TABLE runs ADD COLUMN owner_instance TEXT;
    ALTER TABLE runs ADD COLUMN heartbeat_at INTEGER;
    CREATE INDEX runs_by_owner ON runs (status, owner_instance);
    ALTER TABLE sessions ADD COLUMN usage_total_tokens REAL NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN usage_total_cost REAL NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN usage_steps REAL NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN usage_turns REAL NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN has_usage INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN last_requested_by TEXT;
    UPDATE sessions SET
      usage_total_tokens = CASE WHEN json_type(metadata, '$.usage.totalTokens') IN ('integer', 'real') THEN json_extract(metadata, '$.usage.totalTokens') ELSE 0 END,
      usage_total_cost = CASE WHEN json_type(metadata, '$.usage.totalCost') IN ('integer', 'real') THEN json_extract(metadata, '$.usage.totalCost') ELSE 0 END,
      usage_steps = CASE WHEN json_type(metadata, '$.usage.stepsExecuted') IN ('integer', 'real') THEN json_extract(metadata, '$.usage.stepsExecuted') ELSE 0 END,
      usage_turns = CASE WHEN json_type(metadata, '$.usage.turns') IN ('integer', 'real') THEN json_extract(metadata, '$.usage.turns') ELSE 0 END,
      has_usage = 1,
      metadata = json_remove(metadata, '$.usage')
    WHERE json_valid(metadata) AND json_type(metadata, '$.usage') = 'object';`,
  },
  {
    version: 8,
    name: 'drop_approval_decisions',
    // Never written by any release; the approvals capability keeps its own records.
    up: 'DROP TABLE approval_decisions;',
  },
  {
    version: 9,
    name: 'index_session_messages_per_batch',
    // The session store indexes the rows each transaction added with one INSERT…SELECT (session-writes.ts); the
    // per-row trigger made FTS5 write one segment per message. The delete trigger stays.
    up: 'DROP TRIGGER session_messages_ai;',
  },
  {
    version: 10,
    name: 'openai_response_bodies',
    // GET /v1/responses/:id answers the finished response object as it was sent; older rows keep NULL (404 there).
    // The index serves the responses.ttlDays sweep, which deletes the oldest rows in bounded batches.
    up: `ALTER TABLE openai_responses ADD COLUMN body TEXT;
    CREATE INDEX openai_responses_by_created ON openai_responses (created_at);`,
  },
  {
    version: 11,
    name: 'memory',
    // Memory entries (integer `seq` for the FTS5 and vec0 rowids, text `id` for the port), the observations'
    // links to their sources (a link goes with either end), a contentless full-text index kept by triggers whose
    // `scope` column holds a tenant token and a tenant-and-agent token (hex, so any id is one token; memory-lexical.ts
    // builds the same) so a scoped search ranks only its scope's rows, one stored
    // vector per entry (the truth the vec0 indexes are rebuilt from), the registry of vec0 indexes (one per
    // embedder model and dimension; `stale` when a connection without sqlite-vec changed vectors), per-agent
    // promotions not yet reported by a sweep, and the embedding cache.
    up: `CREATE TABLE memory_entries (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      tenant_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      content TEXT NOT NULL,
      memory_type TEXT NOT NULL,
      trust_level TEXT NOT NULL,
      source_session_key TEXT,
      created_at INTEGER NOT NULL,
      last_recalled_at INTEGER,
      recall_count INTEGER NOT NULL DEFAULT 0,
      status TEXT NOT NULL DEFAULT 'active',
      metadata TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX memory_entries_by_scope ON memory_entries (tenant_id, agent_id, created_at);
    CREATE INDEX memory_entries_by_created ON memory_entries (created_at);
    CREATE INDEX memory_entries_by_agent ON memory_entries (agent_id, status);
    CREATE INDEX memory_entries_by_source ON memory_entries (source_session_key);
    CREATE TABLE memory_links (
      observation_seq INTEGER NOT NULL REFERENCES memory_entries (seq) ON DELETE CASCADE,
      source_seq INTEGER NOT NULL REFERENCES memory_entries (seq) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      PRIMARY KEY (observation_seq, source_seq)
    ) WITHOUT ROWID;
    CREATE INDEX memory_links_by_source ON memory_links (source_seq);
    CREATE VIRTUAL TABLE memory_fts USING fts5 (content, scope, content='', contentless_delete=1);
    CREATE TRIGGER memory_entries_ai AFTER INSERT ON memory_entries BEGIN
      INSERT INTO memory_fts (rowid, content, scope)
      VALUES (new.seq, new.content, 't' || hex(new.tenant_id) || ' a' || hex(new.tenant_id) || 'x' || hex(new.agent_id));
    END;
    CREATE TRIGGER memory_entries_ad AFTER DELETE ON memory_entries BEGIN
      DELETE FROM memory_fts WHERE rowid = old.seq;
    END;
    CREATE TABLE memory_vector_indexes (
      id INTEGER PRIMARY KEY,
      model TEXT NOT NULL,
      dimensions INTEGER NOT NULL,
      stale INTEGER NOT NULL DEFAULT 1,
      UNIQUE (model, dimensions)
    );
    CREATE TABLE memory_vectors (
      entry_seq INTEGER PRIMARY KEY REFERENCES memory_entries (seq) ON DELETE CASCADE,
      index_id INTEGER NOT NULL REFERENCES memory_vector_indexes (id),
      vector BLOB NOT NULL
    );
    CREATE INDEX memory_vectors_by_index ON memory_vectors (index_id);
    CREATE TABLE memory_promotions (
      agent_id TEXT PRIMARY KEY,
      pending INTEGER NOT NULL
    );
    CREATE TABLE memory_embedding_cache (
      model TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      vector BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER NOT NULL,
      PRIMARY KEY (model, content_hash)
    );
    CREATE INDEX memory_embedding_cache_by_use ON memory_embedding_cache (last_used_at);`,
  },
];
