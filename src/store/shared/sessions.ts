// The SessionPort's calls that are neither on a turn's path nor text search, on both dialects: the keyset-paged list,
// delete, clearing a transcript and replacing metadata. Each backend's port runs them (SQLite's after writing its queue).
import type { SessionPort } from '../ports/index.js';
import { storedMetadata, toSessionRecord } from './session-rows.js';
import type { StoreDb } from './store-db.js';

export type SessionQueries = Pick<SessionPort, 'list' | 'delete' | 'clearMessages' | 'updateMetadata'>;

export function createSessionQueries(store: StoreDb): SessionQueries {
  const { db } = store;
  return {
    async list({ kind, updatedSince, ownedBy, agentId, after, limit }, signal) {
      signal?.throwIfAborted();
      let query = db.selectFrom('sessions').selectAll();
      if (kind !== undefined) query = query.where('kind', '=', kind);
      if (updatedSince !== undefined) query = query.where('updated_at', '>=', updatedSince);
      if (ownedBy !== undefined) query = query.where('owner_id', '=', ownedBy);
      if (agentId !== undefined) query = query.where('agent_id', '=', agentId);
      // Keyset: the rows after the cursor in ORDER BY updated_at DESC, session_key; an index range, never an OFFSET
      // scan. The plain `updated_at <=` bound lets SQLite walk one index range (an OR of two ranges sorts them all).
      if (after !== undefined)
        query = query
          .where('updated_at', '<=', after.updatedAt)
          .where((eb) => eb.or([eb('updated_at', '<', after.updatedAt), eb('session_key', '>', after.sessionKey)]));
      query = query.orderBy('updated_at', 'desc').orderBy('session_key');
      const rows = await store.rows(limit === undefined ? query : query.limit(Math.max(0, limit)));
      return rows.map(toSessionRecord);
    },
    // The transcript goes with the session (ON DELETE CASCADE; SQLite's full-text rows by their delete trigger).
    delete: async (sessionKey) =>
      (await store.changes(db.deleteFrom('sessions').where('session_key', '=', sessionKey))) > 0,
    // The session row first: PostgreSQL's row lock orders this after the session's other writes.
    async clearMessages(sessionKey, now) {
      const [, deleted] = await store.atomic([
        db.updateTable('sessions').set({ message_count: 0, updated_at: now }).where('session_key', '=', sessionKey),
        db.deleteFrom('session_messages').where('session_key', '=', sessionKey),
      ]);
      return deleted ?? 0;
    },
    async updateMetadata(sessionKey, metadata, now) {
      const update = db
        .updateTable('sessions')
        .set({ metadata: storedMetadata(metadata), updated_at: now })
        .where('session_key', '=', sessionKey);
      return (await store.changes(update)) > 0;
    },
  };
}
