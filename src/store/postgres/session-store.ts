// PostgreSQL implementation of the SessionPort: session rows, transcripts, usage totals and tsvector search.
import { sessionNotFound } from '../../errors.js';
import type { SessionPort } from '../index.js';
import { transaction, type PgClient, type PgPool } from './pool.js';
import { searchSessions } from './session-search.js';
import {
  createSessionLifecycleQueries,
  createSessionQueries,
  messageRowValues,
  storedMetadata,
  type MessageRowValues,
} from '../shared/index.js';
import { postgresStoreDb } from './store-db.js';

/** Inserts the messages in order: WITH ORDINALITY keeps their order in their ids. */
async function insertMessages(client: PgClient, sessionKey: string, rows: readonly MessageRowValues[]): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO session_messages (session_key, role, content, data, created_at)
     SELECT $1, role, content, data, created_at
     FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY AS m (role, content, data, created_at, position)
     ORDER BY position`,
    [sessionKey, ...[0, 1, 2, 3].map((column) => rows.map((row) => row[column] ?? null))],
  );
}

/**
 * Every write is one transaction that starts by updating the session row: the row lock orders concurrent writes of
 * one session (appends keep their order, usage totals add up), and a missing row fails the call before anything is
 * written. Writes are committed before the call resolves, so every replica sees them at once.
 */
export function createPostgresSessionPort(pool: PgPool): SessionPort {
  /** Sets `assignments` ($1, $2 … `values`) on the session row, then runs `write`; a missing session fails first. */
  const writeMessages = (
    sessionKey: string,
    assignments: string,
    values: readonly number[],
    write: (client: PgClient) => Promise<void>,
  ) =>
    transaction(pool, async (client) => {
      const updated = await client.query(
        `UPDATE sessions SET ${assignments} WHERE session_key = $${values.length + 1}`,
        [...values, sessionKey],
      );
      if ((updated.rowCount ?? 0) === 0) throw sessionNotFound(sessionKey, 'sessionKey');
      await write(client);
    });
  const shared = createSessionQueries(postgresStoreDb(pool));

  return {
    ...shared,
    ...createSessionLifecycleQueries(postgresStoreDb(pool)),
    async ensure(session) {
      // An existing session (every turn after the first) is one read.
      const existing = await shared.get(session.sessionKey);
      if (existing !== undefined) return { session: existing, created: false };
      const inserted = await pool.query(
        `INSERT INTO sessions (session_key, agent_id, tenant_id, kind, created_at, updated_at, metadata, message_count, owner_id)
         VALUES ($1, $2, $3, $4, $5, $5, $6, 0, $7) ON CONFLICT (session_key) DO NOTHING`,
        [
          session.sessionKey,
          session.agentId,
          session.tenantId,
          session.kind,
          session.createdAt,
          storedMetadata(session.metadata),
          session.ownerId,
        ],
      );
      const stored = await shared.get(session.sessionKey);
      if (stored === undefined) throw sessionNotFound(session.sessionKey, 'sessionKey');
      return { session: stored, created: (inserted.rowCount ?? 0) > 0 };
    },
    async append(sessionKey, messages, now) {
      const rows = messages.map(messageRowValues);
      await writeMessages(
        sessionKey,
        'message_count = message_count + $1, updated_at = $2',
        [rows.length, now],
        (client) => insertMessages(client, sessionKey, rows),
      );
    },
    async replaceHistory(sessionKey, messages, now) {
      const rows = messages.map(messageRowValues);
      await writeMessages(sessionKey, 'message_count = $1, updated_at = $2', [rows.length, now], async (client) => {
        await client.query('DELETE FROM session_messages WHERE session_key = $1', [sessionKey]);
        await insertMessages(client, sessionKey, rows);
      });
    },
    // One UPDATE adds to the totals in place, so concurrent turns (on any replica) never lose one. A turn recorded
    // without an outcome leaves the last one as it was (and writes to a schema from before migration 30).
    async recordTurnUsage(sessionKey, { totalTokens, totalCost, stepsExecuted, requestedBy, outcome }, now) {
      const setOutcome = outcome === undefined ? '' : ', last_outcome = $7';
      const result = await pool.query(
        `UPDATE sessions SET usage_total_tokens = usage_total_tokens + $1, usage_total_cost = usage_total_cost + $2,
           usage_steps = usage_steps + $3, usage_turns = usage_turns + 1, has_usage = true, last_requested_by = $4,
           updated_at = $5${setOutcome}
         WHERE session_key = $6`,
        [
          totalTokens,
          totalCost,
          stepsExecuted,
          requestedBy,
          now,
          sessionKey,
          ...(outcome === undefined ? [] : [outcome]),
        ],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async search(query, limit, ownedBy, signal) {
      signal?.throwIfAborted();
      return searchSessions(pool, query, limit, ownedBy);
    },
  };
}
