// The SQL that writes transcripts and usage: message rows with their FTS5 index rows, and one queued batch per transaction.
import Database from 'better-sqlite3';
import { sessionNotFound } from '../../errors.js';
import type { SqliteDatabase } from './database.js';
import type { MessageRowValues } from '../shared/index.js';
import type { QueuedSessionWrite } from './session-write-queue.js';

export interface SessionWrites {
  /** Inserts the rows in order and indexes them; call inside a transaction. */
  insertMessages(sessionKey: string, rows: readonly MessageRowValues[]): void;
  /** Applies queued writes in order in one transaction; throws (all rolled back) when any session is gone. */
  writeBatch(batch: readonly QueuedSessionWrite[]): void;
}

/**
 * Whether the file's sessions table has migration 30's columns (tests open ports on files of earlier versions). A turn
 * recorded without an outcome leaves the last one as it was.
 */
export function hasSessionListColumns(db: SqliteDatabase): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'last_outcome'").get() !== undefined;
}

export function createSessionWrites(db: SqliteDatabase): SessionWrites {
  const withOutcome = hasSessionListColumns(db);
  const insertMessage = db.prepare(
    'INSERT INTO session_messages (session_key, role, content, data, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  // Migration 9 dropped the per-row AFTER INSERT trigger: FTS5 writes its pending terms out at every statement
  // savepoint, so the trigger wrote (and later merged) one small segment per message, while one INSERT…SELECT over
  // the rows a transaction added writes one. Measured on 64-message transactions: about 6 µs of index work per
  // message instead of 20–30 µs. Deletes are rare and keep their trigger.
  const indexFrom = db.prepare(
    'INSERT INTO session_messages_fts (rowid, content, session_key) SELECT id, content, session_key FROM session_messages WHERE id >= ?',
  );
  const bumpCount = db.prepare(
    'UPDATE sessions SET message_count = message_count + ?, updated_at = ? WHERE session_key = ?',
  );
  const addUsage = db.prepare(
    `UPDATE sessions SET usage_total_tokens = usage_total_tokens + ?, usage_total_cost = usage_total_cost + ?,
       usage_steps = usage_steps + ?, usage_turns = usage_turns + 1, has_usage = 1, last_requested_by = ?,
       ${withOutcome ? 'last_outcome = coalesce(?, last_outcome),' : ''} updated_at = ?
     WHERE session_key = ?`,
  );

  /** Inserts without indexing; the id of the first row, which the caller indexes from. */
  function insertRows(sessionKey: string, rows: readonly MessageRowValues[]): number | bigint | undefined {
    let firstId: number | bigint | undefined;
    try {
      for (const [role, content, data, createdAt] of rows) {
        const { lastInsertRowid } = insertMessage.run(sessionKey, role, content, data, createdAt);
        firstId ??= lastInsertRowid;
      }
    } catch (error) {
      // The rows' only foreign key is their session: it is gone (deleted by another connection since it was checked).
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
        throw sessionNotFound(sessionKey, 'sessionKey');
      throw error;
    }
    return firstId;
  }

  // Ids only grow (AUTOINCREMENT) and the transaction holds the write lock from its first insert, so every row at or
  // after the first id of the transaction is one of its own.
  const writeBatch = db.transaction((batch: readonly QueuedSessionWrite[]) => {
    let firstId: number | bigint | undefined;
    for (const entry of batch) {
      if (entry.kind === 'append') {
        const first = insertRows(entry.sessionKey, entry.rows);
        firstId ??= first;
        if (bumpCount.run(entry.rows.length, entry.now, entry.sessionKey).changes === 0)
          throw sessionNotFound(entry.sessionKey, 'sessionKey');
      } else {
        const { usage } = entry;
        const outcome = withOutcome ? [usage.outcome ?? null] : [];
        const changed = addUsage.run(
          usage.totalTokens,
          usage.totalCost,
          usage.stepsExecuted,
          usage.requestedBy,
          ...outcome,
          entry.now,
          entry.sessionKey,
        ).changes;
        if (changed === 0) throw sessionNotFound(entry.sessionKey, 'sessionKey');
      }
    }
    if (firstId !== undefined) indexFrom.run(firstId);
  });

  return {
    insertMessages(sessionKey, rows) {
      const firstId = insertRows(sessionKey, rows);
      if (firstId !== undefined) indexFrom.run(firstId);
    },
    writeBatch: (batch) => writeBatch(batch),
  };
}
