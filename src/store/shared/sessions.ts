// The SessionPort's calls that are neither its appends nor text search, on both dialects: a session and its transcript
// read, the keyset-paged list, delete, clearing a transcript and replacing metadata. Each backend's port runs them
// (SQLite's after writing its queue).
import type { SelectQueryBuilder } from 'kysely';
import type { SessionCountFilter, SessionListFilter, SessionPort } from '../index.js';
import { storedMetadata, toMessage, toSessionRecord } from './session-rows.js';
import { prepared, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

export type SessionQueries = Pick<
  SessionPort,
  'get' | 'history' | 'list' | 'countByChannel' | 'delete' | 'clearMessages' | 'updateMetadata'
>;

/** The list's and the count's filters on the sessions table (channel_id and last_outcome: migration 30). */
function narrowed<O>(
  query: SelectQueryBuilder<Tables, 'sessions', O>,
  filter: SessionCountFilter & Pick<SessionListFilter, 'excludeChannels'>,
): SelectQueryBuilder<Tables, 'sessions', O> {
  const { kind, updatedSince, updatedBefore, ownedBy, agentId, archived, channelId, excludeChannels, outcome } = filter;
  let narrow = query;
  if (kind !== undefined) narrow = narrow.where('kind', '=', kind);
  if (updatedSince !== undefined) narrow = narrow.where('updated_at', '>=', updatedSince);
  if (updatedBefore !== undefined) narrow = narrow.where('updated_at', '<=', updatedBefore);
  if (ownedBy !== undefined) narrow = narrow.where('owner_id', '=', ownedBy);
  if (agentId !== undefined) narrow = narrow.where('agent_id', '=', agentId);
  if (archived !== undefined) narrow = narrow.where('archived_at', archived ? 'is not' : 'is', null);
  if (channelId !== undefined) narrow = narrow.where('channel_id', '=', channelId);
  // A key without a channel part (NULL) is on none of the channels left out.
  if (excludeChannels !== undefined && excludeChannels.length > 0)
    narrow = narrow.where((eb) =>
      eb.or([eb('channel_id', 'is', null), eb('channel_id', 'not in', [...excludeChannels])]),
    );
  if (outcome !== undefined) narrow = narrow.where('last_outcome', '=', outcome);
  return narrow;
}

export function createSessionQueries(store: StoreDb): SessionQueries {
  const { db } = store;
  // On a turn's path (every turn reads its session and transcript): compiled once.
  const byKey = prepared(({ key }: { key: string }) =>
    db.selectFrom('sessions').selectAll().where('session_key', '=', key),
  );
  const columns = ['role', 'content', 'data', 'created_at'] as const;
  const ofSession = (key: string) => db.selectFrom('session_messages').where('session_key', '=', key);
  const allMessages = prepared(({ key }: { key: string }) => ofSession(key).select(columns).orderBy('id'));
  const newestMessages = prepared(({ key, limit }: { key: string; limit: number }) =>
    db
      .selectFrom(
        ofSession(key)
          .select(['id', ...columns])
          .orderBy('id', 'desc')
          .limit(limit)
          .as('newest'),
      )
      .select(columns)
      .orderBy('id'),
  );
  return {
    get: async (sessionKey) => (await store.rows(byKey({ key: sessionKey }))).map(toSessionRecord)[0],
    async history(sessionKey, limit, signal) {
      signal?.throwIfAborted();
      const rows = await store.rows(
        limit === undefined
          ? allMessages({ key: sessionKey })
          : newestMessages({ key: sessionKey, limit: Math.max(0, limit) }),
      );
      return rows.map(toMessage);
    },
    async list(filter, signal) {
      signal?.throwIfAborted();
      const { after, limit } = filter;
      let query = narrowed(db.selectFrom('sessions').selectAll(), filter);
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
    async countByChannel(filter, signal) {
      signal?.throwIfAborted();
      const query = narrowed(
        db.selectFrom('sessions').select((eb) => ['channel_id', eb.fn.countAll<number | string>().as('count')]),
        filter,
      ).groupBy('channel_id');
      const rows = await store.rows(query);
      // PostgreSQL answers count(*) as a bigint string.
      return rows.map((row) => ({ channelId: row.channel_id, count: Number(row.count) }));
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
