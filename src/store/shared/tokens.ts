// The TokenPort on both dialects: API-created tokens, kept as SHA-256 hashes of their secrets.
import { z } from 'zod';
import { SCOPES, type Scope } from '../../config/index.js';
import { tokenIdTaken } from '../../errors.js';
import type { StoredToken, TokenPort } from '../index.js';
import { prepared, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

const scopesSchema = z.array(z.enum(SCOPES));

/** Rows are written only by this port; a malformed scope list fails the read rather than reading as [] (all scopes). */
function toStoredToken(row: Omit<Tables['api_tokens'], 'revoked_at'>): StoredToken {
  // JSONB reads back parsed on PostgreSQL; SQLite keeps the JSON text.
  const scopes: Scope[] = scopesSchema.parse(typeof row.scopes === 'string' ? JSON.parse(row.scopes) : row.scopes);
  return { id: row.id, secretHash: row.secret_hash, scopes, createdAt: row.created_at };
}

export function createTokenPort(store: StoreDb): TokenPort {
  const { db } = store;
  const active = () =>
    db.selectFrom('api_tokens').select(['id', 'secret_hash', 'scopes', 'created_at']).where('revoked_at', 'is', null);
  const byHash = prepared((args: { secretHash: string }) => active().where('secret_hash', '=', args.secretHash));
  const byId = prepared((args: { id: string }) => active().where('id', '=', args.id));
  const one = async (query: ReturnType<typeof byId>) => (await store.rows(query)).map(toStoredToken)[0];
  const update = (id: string, set: { revoked_at: string } | { secret_hash: string }) =>
    store.changes(db.updateTable('api_tokens').set(set).where('id', '=', id).where('revoked_at', 'is', null));
  return {
    async create(token) {
      const { id, secretHash, scopes, createdAt } = token;
      try {
        await store.changes(
          db
            .insertInto('api_tokens')
            .values({ id, secret_hash: secretHash, scopes: JSON.stringify(scopes), created_at: createdAt }),
        );
      } catch (error) {
        // The id's own key: a secret hash has its own unique constraint.
        if (store.violated(error) === 'primary') throw tokenIdTaken(token.id);
        throw error;
      }
    },
    findBySecretHash: (secretHash) => one(byHash({ secretHash })),
    findById: (id) => one(byId({ id })),
    list: async () => (await store.rows(active().orderBy('created_at').orderBy('id'))).map(toStoredToken),
    // A revoked token's row stays as a tombstone: the primary key then refuses its id to every later create.
    revoke: async (id, revokedAt) => (await update(id, { revoked_at: revokedAt })) > 0,
    replaceSecretHash: async (id, secretHash) => (await update(id, { secret_hash: secretHash })) > 0,
  };
}
