// SQLite implementation of the TokenPort: API-created tokens, kept as SHA-256 hashes of their secrets.
import type { Scope } from '../../config/index.js';
import { tokenIdTaken } from '../../errors.js';
import type { StoredToken, TokenPort } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';

interface TokenRow {
  id: string;
  secret_hash: string;
  scopes: string;
  created_at: string;
}

function toStoredToken(row: TokenRow): StoredToken {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: row.created_at,
  };
}

export function createSqliteTokenPort(db: SqliteDatabase): TokenPort {
  const insert = db.prepare('INSERT INTO api_tokens (id, secret_hash, scopes, created_at) VALUES (?, ?, ?, ?)');
  const byHash = db.prepare<[string], TokenRow>(
    'SELECT id, secret_hash, scopes, created_at FROM api_tokens WHERE secret_hash = ? AND revoked_at IS NULL',
  );
  const byId = db.prepare<[string], TokenRow>(
    'SELECT id, secret_hash, scopes, created_at FROM api_tokens WHERE id = ? AND revoked_at IS NULL',
  );
  const active = db.prepare<[], TokenRow>(
    'SELECT id, secret_hash, scopes, created_at FROM api_tokens WHERE revoked_at IS NULL ORDER BY created_at, id',
  );
  // A revoked token's row stays as a tombstone: the primary key then refuses its id to every later create.
  const retire = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const replaceHash = db.prepare('UPDATE api_tokens SET secret_hash = ? WHERE id = ? AND revoked_at IS NULL');

  return {
    async create(token) {
      try {
        insert.run(token.id, token.secretHash, JSON.stringify(token.scopes), token.createdAt);
      } catch (error) {
        if (error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
          throw tokenIdTaken(token.id);
        throw error;
      }
    },
    async findBySecretHash(secretHash) {
      const row = byHash.get(secretHash);
      return row === undefined ? undefined : toStoredToken(row);
    },
    async findById(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toStoredToken(row);
    },
    async list() {
      return active.all().map(toStoredToken);
    },
    async revoke(id, revokedAt) {
      return retire.run(revokedAt, id).changes > 0;
    },
    async replaceSecretHash(id, secretHash) {
      return replaceHash.run(secretHash, id).changes > 0;
    },
  };
}
