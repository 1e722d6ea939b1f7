// PostgreSQL implementation of the SessionPort: session rows, transcripts, usage totals and tsvector search.
import { sessionNotFound } from '../../errors.js';
import type { SessionPort } from '../ports/index.js';
import { transaction, type PgClient, type PgPool } from './pool.js';
import { searchSessions } from './session-search.js';
import {
  messageRowValues,
  SESSION_COLUMNS,
  createSessionQueries,
  storedMetadata,
  toMessage,
  toSessionRecord,
  type MessageRow,
  type MessageRowValues,
  type SessionRow,
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
  const selectOne = async (sessionKey: string) =>
    (await pool.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE session_key = $1`, [sessionKey]))
      .rows[0];

  return {
    ...createSessionQueries(postgresStoreDb(pool)),
    async get(sessionKey) {
      const row = await selectOne(sessionKey);
      return row === undefined ? undefined : toSessionRecord(row);
    },
    async ensure(session) {
      // An existing session (every turn after the first) is one read.
      const existing = await selectOne(session.sessionKey);
      if (existing !== undefined) return { session: toSessionRecord(existing), created: false };
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
      const row = await selectOne(session.sessionKey);
      if (row === undefined) throw sessionNotFound(session.sessionKey, 'sessionKey');
      return { session: toSessionRecord(row), created: (inserted.rowCount ?? 0) > 0 };
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
    async history(sessionKey, limit, signal) {
      signal?.throwIfAborted();
      const result =
        limit === undefined
          ? await pool.query<MessageRow>(
              'SELECT role, content, data, created_at FROM session_messages WHERE session_key = $1 ORDER BY id',
              [sessionKey],
            )
          : await pool.query<MessageRow>(
              `SELECT role, content, data, created_at FROM
                 (SELECT id, role, content, data, created_at FROM session_messages WHERE session_key = $1 ORDER BY id DESC LIMIT $2) AS newest
               ORDER BY id`,
              [sessionKey, Math.max(0, limit)],
            );
      return result.rows.map(toMessage);
    },
    async replaceHistory(sessionKey, messages, now) {
      const rows = messages.map(messageRowValues);
      await writeMessages(sessionKey, 'message_count = $1, updated_at = $2', [rows.length, now], async (client) => {
        await client.query('DELETE FROM session_messages WHERE session_key = $1', [sessionKey]);
        await insertMessages(client, sessionKey, rows);
      });
    },
    // One UPDATE adds to the totals in place, so concurrent turns (on any replica) never lose one.
    async recordTurnUsage(sessionKey, { totalTokens, totalCost, stepsExecuted, requestedBy }, now) {
      const result = await pool.query(
        `UPDATE sessions SET usage_total_tokens = usage_total_tokens + $1, usage_total_cost = usage_total_cost + $2,
           usage_steps = usage_steps + $3, usage_turns = usage_turns + 1, has_usage = true, last_requested_by = $4, updated_at = $5
         WHERE session_key = $6`,
        [totalTokens, totalCost, stepsExecuted, requestedBy, now, sessionKey],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async search(query, limit, ownedBy, signal) {
      signal?.throwIfAborted();
      return searchSessions(pool, query, limit, ownedBy);
    },
  };
}
