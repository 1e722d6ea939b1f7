// The PostgreSQL schema of the database-held config (storage: postgres): its revisions and the secrets they refer to.
import type { SqlMigration } from '../shared/migrations/index.js';

export const CONFIG_MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 6,
    name: 'config_revisions',
    // JSON (not JSONB) keeps the document's keys in the order they were written, so config.get and diffs read as
    // the operator wrote them. Secret values live apart, as secrets.yaml does beside a git-versioned config.yaml, so
    // no revision ever holds one.
    up: `CREATE TABLE config_revisions (
      revision INTEGER PRIMARY KEY CHECK (revision > 0),
      sha TEXT COLLATE "C" NOT NULL UNIQUE,
      document JSON NOT NULL,
      message TEXT NOT NULL,
      author TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE TABLE config_secrets (
      name TEXT COLLATE "C" PRIMARY KEY,
      value TEXT NOT NULL
    );`,
  },
];
