// The MediaPort on both dialects: one row per stored media file, found by id or by expiry.
import { GatewayError } from '../../errors.js';
import type { MediaPort } from '../index.js';
import { first, isAnyOf, type StoreDb } from './store-db.js';

const COLUMNS = ['id', 'content_type', 'size', 'saved_at', 'expires_at', 'owner_id'] as const;

export function createMediaPort(store: StoreDb): MediaPort {
  const { db } = store;
  return {
    async create(record) {
      const { id, contentType, size, savedAt, expiresAt, ownerId } = record;
      const row = { id, content_type: contentType, size, saved_at: savedAt, expires_at: expiresAt, owner_id: ownerId };
      try {
        await store.changes(db.insertInto('media').values(row));
      } catch (error) {
        if (store.violated(error) === 'primary')
          throw new GatewayError('conflict', `Media '${id}' already exists`, { param: 'id' });
        throw error;
      }
    },
    async get(id) {
      const row = await first(store, db.selectFrom('media').select(COLUMNS).where('id', '=', id));
      if (row === undefined) return undefined;
      return {
        id: row.id,
        contentType: row.content_type,
        size: row.size,
        savedAt: row.saved_at,
        expiresAt: row.expires_at,
        ownerId: row.owner_id,
      };
    },
    async expired(now, limit, signal) {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('media')
        .select('id')
        .where('expires_at', 'is not', null)
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .orderBy('id')
        .limit(limit);
      return (await store.rows(query)).map((row) => row.id);
    },
    async existing(ids) {
      const rows = await store.rows(
        db
          .selectFrom('media')
          .select('id')
          .where(isAnyOf(store, 'id', ids)),
      );
      return new Set(rows.map((row) => row.id));
    },
    remove: (ids) => store.changes(db.deleteFrom('media').where(isAnyOf(store, 'id', ids))),
  };
}
