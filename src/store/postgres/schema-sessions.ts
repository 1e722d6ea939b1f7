// The PostgreSQL schema of sessions and transcripts: usage totals in columns, messages searchable through a tsvector.
import type { SqlMigration } from '../shared/migrations/index.js';

export const SESSION_MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 3,
    name: 'sessions_and_transcripts',
    // The 'simple' text-search configuration lower-cases words without stemming or stop words, as SQLite's FTS5
    // unicode61 tokenizer does, so both backends find the same messages for the same query. Metadata stays JSON text
    // (not JSONB) so it reads back with the keys in the order they were written.
    up: `CREATE TABLE sessions (
      session_key TEXT COLLATE "C" PRIMARY KEY,
      agent_id TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      message_count INTEGER NOT NULL DEFAULT 0,
      owner_id TEXT,
      usage_total_tokens DOUBLE PRECISION NOT NULL DEFAULT 0,
      usage_total_cost DOUBLE PRECISION NOT NULL DEFAULT 0,
      usage_steps DOUBLE PRECISION NOT NULL DEFAULT 0,
      usage_turns DOUBLE PRECISION NOT NULL DEFAULT 0,
      has_usage BOOLEAN NOT NULL DEFAULT false,
      last_requested_by TEXT
    );
    CREATE INDEX sessions_updated ON sessions (updated_at);
    CREATE INDEX sessions_by_owner ON sessions (owner_id, updated_at);
    CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at);
    CREATE INDEX sessions_by_kind ON sessions (kind, updated_at);
    CREATE TABLE session_messages (
      id BIGSERIAL PRIMARY KEY,
      session_key TEXT COLLATE "C" NOT NULL REFERENCES sessions (session_key) ON DELETE CASCADE,
      role TEXT NOT NULL,
      content TEXT NOT NULL,
      data TEXT,
      created_at BIGINT NOT NULL,
      search tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED
    );
    CREATE INDEX session_messages_by_session ON session_messages (session_key, id);
    CREATE INDEX session_messages_search ON session_messages USING GIN (search);`,
  },
];
