// The schema, as numbered migrations; a version is never edited once released, only followed by a new one.

export interface Migration {
  version: number;
  name: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
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
];
