// PostgreSQL implementation of the TokenPort: API-created tokens, kept as SHA-256 hashes of their secrets.
import { z } from 'zod';
import { SCOPES, type Scope } from '../../config/index.js';
import { tokenIdTaken } from '../../errors.js';
import type { StoredToken, TokenPort } from '../ports/index.js';
import { sqlState, UNIQUE_VIOLATION, type Queryable } from './pool.js';

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
/** The primary key's constraint: a violation of it is an id issued before; the secret hash has its own. */
const ID_CONSTRAINT = 'api_tokens_pkey';

function constraintOf(error: unknown): string | undefined {
  return error instanceof Error && 'constraint' in error && typeof error.constraint === 'string'
    ? error.constraint
    : undefined;
}

export function createPostgresTokenPort(db: Queryable): TokenPort {
  const one = async (sql: string, value: string) => {
    const row = (await db.query<TokenRow>(sql, [value])).rows[0];
    return row === undefined ? undefined : toStoredToken(row);
  };
  return {
    async create(token) {
      try {
        await db.query('INSERT INTO api_tokens (id, secret_hash, scopes, created_at) VALUES ($1, $2, $3, $4)', [
          token.id,
          token.secretHash,
          JSON.stringify(token.scopes),
          token.createdAt,
        ]);
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION && constraintOf(error) === ID_CONSTRAINT) throw tokenIdTaken(token.id);
        throw error;
      }
    },
    findBySecretHash: (secretHash) =>
      one(`SELECT ${COLUMNS} FROM api_tokens WHERE secret_hash = $1 AND revoked_at IS NULL`, secretHash),
    findById: (id) => one(`SELECT ${COLUMNS} FROM api_tokens WHERE id = $1 AND revoked_at IS NULL`, id),
    async list() {
      return (
        await db.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE revoked_at IS NULL ORDER BY created_at, id`)
      ).rows.map(toStoredToken);
    },
    // A revoked token's row stays as a tombstone: the primary key then refuses its id to every later create.
    async revoke(id, revokedAt) {
      return (
        ((await db.query('UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [revokedAt, id]))
          .rowCount ?? 0) > 0
      );
    },
    async replaceSecretHash(id, secretHash) {
      return (
        ((
          await db.query('UPDATE api_tokens SET secret_hash = $1 WHERE id = $2 AND revoked_at IS NULL', [
            secretHash,
            id,
          ])
        ).rowCount ?? 0) > 0
      );
    },
  };
}
