// SQLite implementation of the SessionPort: session rows, transcripts, usage totals, FTS5 search, approval decisions.
import { notFound } from '../../errors.js';
import type {
  SessionKind,
  SessionPort,
  SessionRecord,
  SessionSearchHit,
  TranscriptMessage,
  TranscriptToolCall,
} from '../ports/index.js';
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
  usage_total_tokens: number;
  usage_total_cost: number;
  usage_steps: number;
  usage_turns: number;
  has_usage: number;
  last_requested_by: string | null;
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

const SESSION_COLUMNS =
  'session_key, agent_id, tenant_id, kind, created_at, updated_at, metadata, message_count, owner_id, ' +
  'usage_total_tokens, usage_total_cost, usage_steps, usage_turns, has_usage, last_requested_by';

function parseObject(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function toKind(value: string): SessionKind {
  return value === 'sub-agent' || value === 'group' ? value : 'dm';
}

/**
 * The metadata a caller sees: the stored object, then `usage` and `requestedBy` from their columns once a turn was
 * recorded (spreading first keeps the key order the JSON-only layout had).
 */
function toMetadata(row: SessionRow): Record<string, unknown> {
  const metadata = parseObject(row.metadata);
  if (row.has_usage === 0 && row.last_requested_by === null) return metadata;
  const composed: Record<string, unknown> = { ...metadata };
  if (row.has_usage !== 0) {
    composed.usage = {
      totalTokens: row.usage_total_tokens,
      totalCost: row.usage_total_cost,
      stepsExecuted: row.usage_steps,
      turns: row.usage_turns,
    };
  }
  if (row.last_requested_by !== null) composed.requestedBy = row.last_requested_by;
  return composed;
}

/** The JSON part of metadata: `usage` lives in its columns, so a copy written back is dropped. */
function storedMetadata(metadata: Record<string, unknown>): string {
  if (!('usage' in metadata)) return JSON.stringify(metadata);
  const { usage: _usage, ...rest } = metadata;
  return JSON.stringify(rest);
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    sessionKey: row.session_key,
    agentId: row.agent_id,
    tenantId: row.tenant_id,
    kind: toKind(row.kind),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    metadata: toMetadata(row),
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
 * Turns the user's plain text into an FTS5 query: every word becomes a quoted term (so FTS5 operators and punctuation in
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
  const deleteDecisions = db.prepare('DELETE FROM approval_decisions WHERE session_key = ?');
  const setMetadata = db.prepare('UPDATE sessions SET metadata = ?, updated_at = ? WHERE session_key = ?');
  const addUsage = db.prepare(
    `UPDATE sessions SET usage_total_tokens = usage_total_tokens + ?, usage_total_cost = usage_total_cost + ?,
       usage_steps = usage_steps + ?, usage_turns = usage_turns + 1, has_usage = 1, last_requested_by = ?, updated_at = ?
     WHERE session_key = ?`,
  );
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
    if (selectOne.get(sessionKey) === undefined) throw notFound(`Session not found: ${sessionKey}`, { param: 'sessionKey' });
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
    if (row === undefined) throw notFound(`Session not found: ${session.sessionKey}`);
    return { session: toRecord(row), created: inserted.changes > 0 };
  });
  // The FTS rows follow the message rows through the AFTER DELETE trigger, which also fires for the cascade.
  const deleteTx = db.transaction((sessionKey: string): boolean => {
    deleteDecisions.run(sessionKey);
    return deleteSession.run(sessionKey).changes > 0;
  });

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
    async search(query, limit, ownedBy, signal): Promise<SessionSearchHit[]> {
      signal?.throwIfAborted();
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
    async clearApprovalDecisions(sessionKey) {
      return deleteDecisions.run(sessionKey).changes;
    },
  };
}
