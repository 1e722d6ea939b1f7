// SQLite implementation of the SessionStore: session rows, their transcripts, FTS5 search and approval decisions.
import { notFound, sessionNotFound } from '../errors.js';
import type { SessionKind, SessionRecord, SessionSearchHit, SessionStore } from '../sessions/types.js';
import type { TranscriptMessage, TranscriptToolCall } from '../providers/transcript.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

interface SessionRow {
  session_key: string;
  agent_id: string;
  tenant_id: string;
  kind: string;
  created_at: number;
  updated_at: number;
  metadata: string;
  message_count: number;
  owner_id: string | null;
}

interface MessageRow {
  role: string;
  content: string;
  data: string | null;
  created_at: number;
}

interface SearchRow {
  session_key: string;
  agent_id: string;
  metadata: string;
  snippet: string;
  rank: number;
  created_at: number;
}

/** Marks the matched terms in search snippets; tokens either side of the match, at most. */
const SNIPPET_OPEN = '[';
const SNIPPET_CLOSE = ']';
const SNIPPET_TOKENS = 16;
/** Cap on the terms taken from one search query (outside input). */
const MAX_QUERY_TERMS = 32;

const SESSION_COLUMNS = 'session_key, agent_id, tenant_id, kind, created_at, updated_at, metadata, message_count, owner_id';

function parseObject(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function toKind(value: string): SessionKind {
  return value === 'sub-agent' || value === 'group' ? value : 'dm';
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    sessionKey: row.session_key,
    agentId: row.agent_id,
    tenantId: row.tenant_id,
    kind: toKind(row.kind),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    metadata: parseObject(row.metadata),
    messageCount: row.message_count,
    ownerId: row.owner_id,
  };
}

/** The role-specific fields of a message, kept in the `data` JSON column. */
function messageData(message: TranscriptMessage): string | null {
  if (message.role === 'assistant' && message.toolCalls !== undefined) return JSON.stringify({ toolCalls: message.toolCalls });
  if (message.role === 'tool') {
    return JSON.stringify({ toolCallId: message.toolCallId, toolName: message.toolName, isError: message.isError });
  }
  return null;
}

function toMessage(row: MessageRow): TranscriptMessage {
  const data = parseObject(row.data);
  const timestamp = row.created_at;
  switch (row.role) {
    case 'system':
    case 'user':
      return { role: row.role, content: row.content, timestamp };
    case 'tool':
      return {
        role: 'tool',
        toolCallId: typeof data.toolCallId === 'string' ? data.toolCallId : '',
        toolName: typeof data.toolName === 'string' ? data.toolName : '',
        content: row.content,
        isError: data.isError === true,
        timestamp,
      };
    default: {
      const toolCalls = Array.isArray(data.toolCalls) ? (data.toolCalls as TranscriptToolCall[]) : undefined;
      return toolCalls === undefined
        ? { role: 'assistant', content: row.content, timestamp }
        : { role: 'assistant', content: row.content, toolCalls, timestamp };
    }
  }
}

/**
 * Turns free text into an FTS5 query: every word becomes a quoted term (so FTS5 operators and punctuation in
 * user input cannot cause syntax errors) and all terms must match. Empty when the text has no word.
 */
export function toFtsQuery(text: string): string {
  const terms = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return terms
    .slice(0, MAX_QUERY_TERMS)
    .map((term) => `"${term}"`)
    .join(' ');
}

/** The channel a session talks on: `metadata.channelType` when set, else the key's channelId part. */
function channelTypeOf(sessionKey: string, metadata: Record<string, unknown>): string {
  if (typeof metadata.channelType === 'string') return metadata.channelType;
  return sessionKey.split(':')[2] ?? 'unknown';
}

export function createSqliteSessionStore(db: SqliteDatabase): SessionStore {
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
  const deleteDecisions = db.prepare('DELETE FROM approval_decisions WHERE session_key = ?');
  const setMetadata = db.prepare('UPDATE sessions SET metadata = ?, updated_at = ? WHERE session_key = ?');
  // One hit per session: its best-ranked message (bm25 is lower-is-better; ties go to the newest message).
  // An owner filter joins inside `hits`, so other clients' sessions never take a place under the limit.
  const searchSql = (ownerClause: string) =>
    `WITH hits AS (
       SELECT rowid AS id, session_key, bm25(session_messages_fts) AS rank,
              snippet(session_messages_fts, 0, '${SNIPPET_OPEN}', '${SNIPPET_CLOSE}', '…', ${SNIPPET_TOKENS}) AS snippet
       FROM session_messages_fts WHERE session_messages_fts MATCH ?${ownerClause}
     ), best AS (
       SELECT id, session_key, rank, snippet,
              ROW_NUMBER() OVER (PARTITION BY session_key ORDER BY rank, id DESC) AS position
       FROM hits
     )
     SELECT best.session_key, s.agent_id, s.metadata, best.snippet, best.rank, m.created_at
     FROM best
     JOIN sessions s ON s.session_key = best.session_key
     JOIN session_messages m ON m.id = best.id
     WHERE best.position = 1
     ORDER BY best.rank, m.id DESC
     LIMIT ?`;
  const searchAll = db.prepare<[string, number], SearchRow>(searchSql(''));
  const searchOwned = db.prepare<[string, string, number], SearchRow>(
    searchSql(' AND session_key IN (SELECT session_key FROM sessions WHERE owner_id = ?)'),
  );

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
      JSON.stringify(session.metadata),
      session.ownerId,
    );
    const row = selectOne.get(session.sessionKey);
    if (row === undefined) throw notFound(`Session not found: ${session.sessionKey}`);
    return { session: toRecord(row), created: inserted.changes > 0 };
  });
  // The FTS rows follow the message rows through the AFTER DELETE trigger, which also fires for the cascade.
  const deleteTx = db.transaction((sessionKey: string): boolean => {
    deleteDecisions.run(sessionKey);
    return deleteSession.run(sessionKey).changes > 0;
  });

  return {
    get(sessionKey) {
      const row = selectOne.get(sessionKey);
      return row === undefined ? undefined : toRecord(row);
    },
    ensure: (session) => ensureTx(session),
    append(sessionKey, messages, now) {
      appendTx(sessionKey, messages, now);
    },
    history(sessionKey, limit) {
      const rows = limit === undefined ? allMessages.all(sessionKey) : newestMessages.all(sessionKey, Math.max(0, limit));
      return rows.map(toMessage);
    },
    replaceHistory(sessionKey, messages, now) {
      replaceTx(sessionKey, messages, now);
    },
    list({ kind, updatedSince, ownedBy, limit }) {
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
    delete: (sessionKey) => deleteTx(sessionKey),
    clearMessages: (sessionKey, now) => clearTx(sessionKey, now),
    updateMetadata(sessionKey, metadata, now) {
      return setMetadata.run(JSON.stringify(metadata), now, sessionKey).changes > 0;
    },
    search(query, limit, ownedBy): SessionSearchHit[] {
      const match = toFtsQuery(query);
      if (match === '' || limit <= 0) return [];
      const rows = ownedBy === undefined ? searchAll.all(match, limit) : searchOwned.all(match, ownedBy, limit);
      return rows.map((row) => ({
        sessionKey: row.session_key,
        agentId: row.agent_id,
        channelType: channelTypeOf(row.session_key, parseObject(row.metadata)),
        snippet: row.snippet,
        // Reported higher-is-better: bm25() gives smaller (more negative) values to better matches.
        score: -row.rank,
        timestamp: row.created_at,
      }));
    },
    clearApprovalDecisions(sessionKey) {
      return deleteDecisions.run(sessionKey).changes;
    },
  };
}
