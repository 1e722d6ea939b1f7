// PostgreSQL implementation of the TokenPort: API-created tokens, kept as SHA-256 hashes of their secrets.
import { z } from 'zod';
import { SCOPES, type Scope } from '../../config/index.js';
import type { StoredToken, TokenPort } from '../ports/index.js';
import type { Queryable } from './pool.js';

interface TokenRow {
  id: string;
  secret_hash: string;
  scopes: unknown;
  created_at: string;
}

const scopesSchema = z.array(z.enum(SCOPES));

/** Rows are written only by this port; a malformed scope list fails the read rather than reading as [] (all scopes). */
function toStoredToken(row: TokenRow): StoredToken {
  const scopes: Scope[] = scopesSchema.parse(row.scopes);
  return { id: row.id, secretHash: row.secret_hash, scopes, createdAt: row.created_at };
}

const COLUMNS = 'id, secret_hash, scopes, created_at';

export function createPostgresTokenPort(db: Queryable): TokenPort {
  const one = async (sql: string, value: string) => {
    const row = (await db.query<TokenRow>(sql, [value])).rows[0];
    return row === undefined ? undefined : toStoredToken(row);
  };
  return {
    async create(token) {
      await db.query('INSERT INTO api_tokens (id, secret_hash, scopes, created_at) VALUES ($1, $2, $3, $4)', [
        token.id,
        token.secretHash,
        JSON.stringify(token.scopes),
        token.createdAt,
      ]);
    },
    findBySecretHash: (secretHash) => one(`SELECT ${COLUMNS} FROM api_tokens WHERE secret_hash = $1`, secretHash),
    findById: (id) => one(`SELECT ${COLUMNS} FROM api_tokens WHERE id = $1`, id),
    async list() {
      return (await db.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`)).rows.map(toStoredToken);
    },
    // A revoked id is deleted rather than kept, so the id can be issued again later.
    async revoke(id) {
      return ((await db.query('DELETE FROM api_tokens WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
    async replaceSecretHash(id, secretHash) {
      return ((await db.query('UPDATE api_tokens SET secret_hash = $1 WHERE id = $2', [secretHash, id])).rowCount ?? 0) > 0;
    },
  };
}
