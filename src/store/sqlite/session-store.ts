// SQLite implementation of the SessionPort: session rows, transcripts, usage totals and FTS5 search.
import { sessionNotFound } from '../../errors.js';
import type { SessionPort, SessionRecord, TranscriptMessage } from '../ports/index.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';
import { messageData, SESSION_COLUMNS, storedMetadata, toMessage, toRecord, type MessageRow, type SessionRow } from './session-rows.js';
import { createSessionSearch } from './session-search.js';

export function createSqliteSessionPort(db: SqliteDatabase): SessionPort {
  const selectOne = db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE session_key = ?`);
  const insertSession = db.prepare(
    `INSERT OR IGNORE INTO sessions (session_key, agent_id, tenant_id, kind, created_at, updated_at, metadata, message_count, owner_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)`,
  );
  const insertMessage = db.prepare('INSERT INTO session_messages (session_key, role, content, data, created_at) VALUES (?, ?, ?, ?, ?)');
  const bumpCount = db.prepare('UPDATE sessions SET message_count = message_count + ?, updated_at = ? WHERE session_key = ?');
  const setCount = db.prepare('UPDATE sessions SET message_count = ?, updated_at = ? WHERE session_key = ?');
  const deleteMessages = db.prepare('DELETE FROM session_messages WHERE session_key = ?');
  const allMessages = db.prepare<[string], MessageRow>(
    'SELECT role, content, data, created_at FROM session_messages WHERE session_key = ? ORDER BY id',
  );
  const newestMessages = db.prepare<[string, number], MessageRow>(
    `SELECT role, content, data, created_at FROM
       (SELECT id, role, content, data, created_at FROM session_messages WHERE session_key = ? ORDER BY id DESC LIMIT ?)
     ORDER BY id`,
  );
  const deleteSession = db.prepare('DELETE FROM sessions WHERE session_key = ?');
  const setMetadata = db.prepare('UPDATE sessions SET metadata = ?, updated_at = ? WHERE session_key = ?');
  const addUsage = db.prepare(
    `UPDATE sessions SET usage_total_tokens = usage_total_tokens + ?, usage_total_cost = usage_total_cost + ?,
       usage_steps = usage_steps + ?, usage_turns = usage_turns + 1, has_usage = 1, last_requested_by = ?, updated_at = ?
     WHERE session_key = ?`,
  );
  const search = createSessionSearch(db);

  // One prepared statement per filter combination (at most 16), built on first use.
  const listStatements = new Map<string, Statement<(string | number)[], SessionRow>>();

  function requireSession(sessionKey: string): void {
    if (selectOne.get(sessionKey) === undefined) throw sessionNotFound(sessionKey, 'sessionKey');
  }

  function insertAll(sessionKey: string, messages: readonly TranscriptMessage[]): void {
    for (const message of messages) {
      insertMessage.run(sessionKey, message.role, message.content, messageData(message), message.timestamp);
    }
  }

  const appendTx = db.transaction((sessionKey: string, messages: readonly TranscriptMessage[], now: number) => {
    requireSession(sessionKey);
    insertAll(sessionKey, messages);
    bumpCount.run(messages.length, now, sessionKey);
  });
  const replaceTx = db.transaction((sessionKey: string, messages: readonly TranscriptMessage[], now: number) => {
    requireSession(sessionKey);
    deleteMessages.run(sessionKey);
    insertAll(sessionKey, messages);
    setCount.run(messages.length, now, sessionKey);
  });
  const clearTx = db.transaction((sessionKey: string, now: number): number => {
    if (selectOne.get(sessionKey) === undefined) return 0;
    const deleted = deleteMessages.run(sessionKey).changes;
    setCount.run(0, now, sessionKey);
    return deleted;
  });
  const ensureTx = db.transaction((session: Omit<SessionRecord, 'messageCount' | 'updatedAt'>) => {
    const inserted = insertSession.run(
      session.sessionKey,
      session.agentId,
      session.tenantId,
      session.kind,
      session.createdAt,
      session.createdAt,
      storedMetadata(session.metadata),
      session.ownerId,
    );
    const row = selectOne.get(session.sessionKey);
    if (row === undefined) throw sessionNotFound(session.sessionKey, 'sessionKey');
    return { session: toRecord(row), created: inserted.changes > 0 };
  });
  // The FTS rows follow the message rows through the AFTER DELETE trigger, which also fires for the cascade.
  const deleteTx = db.transaction((sessionKey: string): boolean => deleteSession.run(sessionKey).changes > 0);

  return {
    async get(sessionKey) {
      const row = selectOne.get(sessionKey);
      return row === undefined ? undefined : toRecord(row);
    },
    ensure: async (session) => ensureTx(session),
    async append(sessionKey, messages, now) {
      appendTx(sessionKey, messages, now);
    },
    async history(sessionKey, limit, signal) {
      signal?.throwIfAborted();
      const rows = limit === undefined ? allMessages.all(sessionKey) : newestMessages.all(sessionKey, Math.max(0, limit));
      return rows.map(toMessage);
    },
    async replaceHistory(sessionKey, messages, now) {
      replaceTx(sessionKey, messages, now);
    },
    async list({ kind, updatedSince, ownedBy, limit }, signal) {
      signal?.throwIfAborted();
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (kind !== undefined) {
        where.push('kind = ?');
        args.push(kind);
      }
      if (updatedSince !== undefined) {
        where.push('updated_at >= ?');
        args.push(updatedSince);
      }
      if (ownedBy !== undefined) {
        where.push('owner_id = ?');
        args.push(ownedBy);
      }
      const clause = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
      const limitClause = limit === undefined ? '' : 'LIMIT ?';
      if (limit !== undefined) args.push(Math.max(0, limit));
      const sql = `SELECT ${SESSION_COLUMNS} FROM sessions ${clause} ORDER BY updated_at DESC, session_key ${limitClause}`;
      let statement = listStatements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<(string | number)[], SessionRow>(sql);
        listStatements.set(sql, statement);
      }
      return statement.all(...args).map(toRecord);
    },
    delete: async (sessionKey) => deleteTx(sessionKey),
    clearMessages: async (sessionKey, now) => clearTx(sessionKey, now),
    async updateMetadata(sessionKey, metadata, now) {
      return setMetadata.run(storedMetadata(metadata), now, sessionKey).changes > 0;
    },
    async recordTurnUsage(sessionKey, usage, now) {
      return addUsage.run(usage.totalTokens, usage.totalCost, usage.stepsExecuted, usage.requestedBy, now, sessionKey).changes > 0;
    },
    async search(query, limit, ownedBy, signal) {
      signal?.throwIfAborted();
      return search(query, limit, ownedBy);
    },
  };
}
