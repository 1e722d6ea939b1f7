// The SessionPort's lifecycle calls on both dialects: expiring idle sessions, archiving finished sub-agent sessions,
// deleting expired ones past their retention, and starting an expired session over on its key.
import { sql } from 'kysely';
import type { SessionPort } from '../index.js';
import { flag, isAnyOf, type StoreDb } from './store-db.js';

export type SessionLifecycleQueries = Pick<
  SessionPort,
  'expireIdle' | 'archiveFinishedSubAgents' | 'deleteExpired' | 'restartExpired'
>;

/** The columns a session row carries, in the order restartExpired copies them to the archive key. */
const COPIED_COLUMNS = [
  'agent_id',
  'tenant_id',
  'kind',
  'created_at',
  'updated_at',
  'metadata',
  'message_count',
  'owner_id',
  'usage_total_tokens',
  'usage_total_cost',
  'usage_steps',
  'usage_turns',
  'has_usage',
  'last_requested_by',
  'expired_at',
  'archived_at',
  'last_outcome',
] as const;

export function createSessionLifecycleQueries(store: StoreDb): SessionLifecycleQueries {
  const { db } = store;
  return {
    // The condition is repeated on the UPDATE itself: PostgreSQL re-reads it under the row lock, so two replicas
    // sweeping at once never both mark (and announce) one session.
    async expireIdle(idleBefore, now, limit) {
      const idle = db
        .selectFrom('sessions')
        .select('session_key')
        .where('expired_at', 'is', null)
        .where('updated_at', '<', idleBefore)
        .orderBy('updated_at')
        .limit(Math.max(0, limit));
      const rows = await store.rows(
        db
          .updateTable('sessions')
          .set({ expired_at: now })
          .where('session_key', 'in', idle)
          .where('expired_at', 'is', null)
          .where('updated_at', '<', idleBefore)
          .returning('session_key'),
      );
      return rows.map((row) => row.session_key);
    },
    async archiveFinishedSubAgents(finishedBefore, now, limit) {
      const finished = db
        .selectFrom('runs')
        .innerJoin('sessions', 'sessions.session_key', 'runs.session_key')
        .select('runs.session_key')
        .where('runs.kind', '=', 'spawn')
        .where('runs.status', '<>', 'running')
        .where('runs.completed_at', '<', finishedBefore)
        .where('sessions.kind', '=', 'sub-agent')
        .where('sessions.archived_at', 'is', null)
        .orderBy('runs.completed_at')
        .limit(Math.max(0, limit));
      const archived = await store.rows(
        db
          .updateTable('sessions')
          .set({ archived_at: now })
          .where('session_key', 'in', finished)
          .where('archived_at', 'is', null)
          .returning('session_key'),
      );
      const keys = archived.map((row) => row.session_key);
      if (keys.length === 0) return [];
      const runs = await store.rows(
        db
          .selectFrom('runs')
          .select(['run_id', 'session_key'])
          .where('kind', '=', 'spawn')
          .where(isAnyOf(store, 'session_key', keys))
          .orderBy('completed_at'),
      );
      return runs.map((run) => ({ runId: run.run_id, sessionKey: run.session_key }));
    },
    // The transcript goes with the session (ON DELETE CASCADE; SQLite's full-text rows by their delete trigger).
    deleteExpired: async (expiredBefore, limit) =>
      store.changes(
        db
          .deleteFrom('sessions')
          .where(
            'session_key',
            'in',
            db
              .selectFrom('sessions')
              .select('session_key')
              .where('expired_at', '<', expiredBefore)
              .orderBy('expired_at')
              .limit(Math.max(0, limit)),
          ),
      ),
    async restartExpired(sessionKey, archiveKey, now) {
      const expired = db
        .selectFrom('sessions')
        .select('session_key')
        .where('session_key', '=', sessionKey)
        .where('expired_at', 'is not', null);
      // Each statement checks that the session is still expired, so a session that is not writes nothing at all.
      const [, , restarted] = await store.atomic([
        db
          .insertInto('sessions')
          .columns(['session_key', ...COPIED_COLUMNS])
          .expression(
            db
              .selectFrom('sessions')
              .select([sql<string>`cast(${archiveKey} as text)`.as('session_key'), ...COPIED_COLUMNS])
              .where('session_key', '=', sessionKey)
              .where('expired_at', 'is not', null),
          ),
        db
          .updateTable('session_messages')
          .set({ session_key: archiveKey })
          .where('session_key', '=', sessionKey)
          .where((eb) => eb.exists(expired)),
        db
          .updateTable('sessions')
          .set({
            created_at: now,
            updated_at: now,
            message_count: 0,
            usage_total_tokens: 0,
            usage_total_cost: 0,
            usage_steps: 0,
            usage_turns: 0,
            has_usage: flag(store, false),
            last_requested_by: null,
            expired_at: null,
            archived_at: null,
          })
          .where('session_key', '=', sessionKey)
          .where('expired_at', 'is not', null),
      ]);
      return (restarted ?? 0) > 0;
    },
  };
}
