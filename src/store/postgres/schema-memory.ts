// The PostgreSQL schema of memory: entries with a tsvector, observation links, one vector per entry as real[], the embedding cache.
import type { SqlMigration } from '../shared/migrations/index.js';

export const MEMORY_MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 5,
    name: 'memory',
    // Vectors are real[] with their norm, ranked by exact cosine in SQL (memory-search.ts), so the scope filters stay in
    // the same query; (model, dimensions) decides which vectors are compared. Links go with either end (cascade).
    up: `CREATE TABLE memory_entries (
      seq BIGSERIAL PRIMARY KEY,
      id TEXT COLLATE "C" NOT NULL UNIQUE,
      tenant_id TEXT COLLATE "C" NOT NULL,
      agent_id TEXT COLLATE "C" NOT NULL,
      content TEXT NOT NULL,
      memory_type TEXT NOT NULL,
      trust_level TEXT NOT NULL,
      source_session_key TEXT,
      created_at BIGINT NOT NULL,
      last_recalled_at BIGINT,
      recall_count INTEGER NOT NULL DEFAULT 0,
      status TEXT NOT NULL DEFAULT 'active',
      metadata TEXT NOT NULL DEFAULT '{}',
      search tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED
    );
    CREATE INDEX memory_entries_by_scope ON memory_entries (tenant_id, agent_id, created_at);
    CREATE INDEX memory_entries_by_created ON memory_entries (created_at);
    CREATE INDEX memory_entries_by_agent ON memory_entries (agent_id, status);
    CREATE INDEX memory_entries_by_source ON memory_entries (source_session_key);
    CREATE INDEX memory_entries_search ON memory_entries USING GIN (search);
    CREATE TABLE memory_links (
      observation_seq BIGINT NOT NULL REFERENCES memory_entries (seq) ON DELETE CASCADE,
      source_seq BIGINT NOT NULL REFERENCES memory_entries (seq) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      PRIMARY KEY (observation_seq, source_seq)
    );
    CREATE INDEX memory_links_by_source ON memory_links (source_seq);
    CREATE TABLE memory_vectors (
      entry_seq BIGINT PRIMARY KEY REFERENCES memory_entries (seq) ON DELETE CASCADE,
      model TEXT COLLATE "C" NOT NULL,
      dimensions INTEGER NOT NULL,
      norm DOUBLE PRECISION NOT NULL,
      vector REAL[] NOT NULL
    );
    CREATE INDEX memory_vectors_by_model ON memory_vectors (model, dimensions);
    CREATE TABLE memory_promotions (
      agent_id TEXT COLLATE "C" PRIMARY KEY,
      pending INTEGER NOT NULL
    );
    CREATE TABLE memory_embedding_cache (
      model TEXT COLLATE "C" NOT NULL,
      content_hash TEXT COLLATE "C" NOT NULL,
      vector REAL[] NOT NULL,
      created_at BIGINT NOT NULL,
      last_used_at BIGINT NOT NULL,
      PRIMARY KEY (model, content_hash)
    );
    CREATE INDEX memory_embedding_cache_by_use ON memory_embedding_cache (last_used_at);`,
  },
  {
    version: 7,
    name: 'memory_owners',
    // A memory belongs to the token owning the session it was learned in (issue 30): taken from that session where it
    // records an owner, else NULL, an operator's entry (admin). The index serves owner-scoped searches and probes.
    up: `ALTER TABLE memory_entries ADD COLUMN owner_id TEXT COLLATE "C";
    UPDATE memory_entries e SET owner_id = s.owner_id FROM sessions s WHERE s.session_key = e.source_session_key COLLATE "C";
    CREATE INDEX memory_entries_by_owner ON memory_entries (owner_id, tenant_id, agent_id);`,
  },
];
