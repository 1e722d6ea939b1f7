// The PostgreSQL schema of who owns what a token made: media files record their saver, revoked tokens stay as tombstones.
import type { SqlMigration } from '../shared/migrations/index.js';

export const OWNER_MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 8,
    name: 'media_owners_and_token_tombstones',
    // A media file is served to the token that saved it (and admins); rows from before have no owner: admins only.
    // A revoked token keeps its row (revoked_at set), so its id, which owns sessions and media, is never issued again.
    up: `ALTER TABLE media ADD COLUMN owner_id TEXT COLLATE "C";
    ALTER TABLE api_tokens ADD COLUMN revoked_at TEXT COLLATE "C";`,
  },
];
