// SQLite implementation of the SessionPort: session rows, transcripts, usage totals and FTS5 search, with grouped writes.
import { pino, type Logger } from 'pino';
import { isGatewayError, sessionNotFound } from '../../errors.js';
import type { SessionPort, SessionRecord, TranscriptMessage } from '../index.js';
import type { SqliteDatabase } from './database.js';
import {
  createSessionLifecycleQueries,
  createSessionQueries,
  messageRowValues,
  storedMetadata,
  toSessionRecord,
  type MessageRowValues,
  type SessionRow,
} from '../shared/index.js';
import { createSessionSearch } from './session-search.js';
import { DEFAULT_SESSION_WRITE_LIMITS, type SessionWriteLimits } from './session-write-limits.js';
import { createSessionWriteQueue, type SessionWriteQueue } from './session-write-queue.js';
import { createSessionWrites } from './session-writes.js';
import { sqliteStoreDb } from './store-db.js';

export interface SqliteSessionPortOptions {
  /** Where a queued write that could not be stored is reported (session keys and counts, never bodies). */
  log?: Logger;
  limits?: SessionWriteLimits;
}

export interface SqliteSessionPort extends SessionPort {
  /** Writes the queued appends and usage now; StorePorts.close() calls it before closing the connection. */
  flush(): void;
}

/**
 * One write queue per connection, so every session port opened on it (app.ts opens one; tests open several) reads
 * the others' queued writes. The options of the first port opened on a connection apply.
 */
const queues = new WeakMap<SqliteDatabase, SessionWriteQueue>();

let ownLog: Logger | undefined;
/** For callers that pass no logger (app.ts passes none yet): one stdout logger shared by the process. */
function storeLog(): Logger {
  ownLog ??= pino({ base: { service: 'agent-gateway', component: 'store' } });
  return ownLog;
}

function queueFor(db: SqliteDatabase, options: SqliteSessionPortOptions): SessionWriteQueue {
  let queue = queues.get(db);
  if (queue === undefined) {
    const { writeBatch } = createSessionWrites(db);
    queue = createSessionWriteQueue({
      write: writeBatch,
      isOpen: () => db.open,
      limits: options.limits ?? DEFAULT_SESSION_WRITE_LIMITS,
      log: options.log ?? storeLog(),
    });
    queues.set(db, queue);
  }
  return queue;
}

function charsOf(rows: readonly MessageRowValues[]): number {
  let chars = 0;
  for (const [, content, data] of rows) chars += content.length + (data?.length ?? 0);
  return chars;
}

/**
 * `append` and `recordTurnUsage` queue their write (see session-write-queue.ts) and answer once the transaction that
 * holds it, shared with every write queued in the same event-loop turn, committed. Every other call first writes what
 * is queued, so no caller sees a missing message or a stale count, update time or usage: the
 * per-turn reads of one session (get, ensure, history) when that session has a queued write, everything else (list,
 * search, and the rare structural writes, after which the file itself is up to date) always.
 *
 * Whether the session exists is checked when a write is queued: by the primary-key SELECT, or by a write of the same
 * session already waiting (nothing in this process deletes a session without flushing first). A session another
 * connection deletes in between loses the queued write, which the queue logs: that append rejects with `not_found`
 * and that usage write answers false, as if the session had been gone at the call.
 */
export function createSqliteSessionPort(db: SqliteDatabase, options: SqliteSessionPortOptions = {}): SqliteSessionPort {
  const queue = queueFor(db, options);
  const writes = createSessionWrites(db);
  // Every column, whichever migration the file is at (tests open ports on files of earlier versions).
  const selectOne = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_key = ?');
  const exists = db.prepare<[string], number>('SELECT 1 FROM sessions WHERE session_key = ?').pluck();
  const insertSession = db.prepare(
    `INSERT OR IGNORE INTO sessions (session_key, agent_id, tenant_id, kind, created_at, updated_at, metadata, message_count, owner_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)`,
  );
  const setCount = db.prepare('UPDATE sessions SET message_count = ?, updated_at = ? WHERE session_key = ?');
  const deleteMessages = db.prepare('DELETE FROM session_messages WHERE session_key = ?');
  const search = createSessionSearch(db);
  const shared = createSessionQueries(sqliteStoreDb(db));
  const lifecycle = createSessionLifecycleQueries(sqliteStoreDb(db));

  /** Writes the queue when it holds a write of this session: a read of one session depends on nothing else queued. */
  function settle(sessionKey: string): void {
    if (queue.hasPending(sessionKey)) queue.flush();
  }

  /** `call` once everything queued is written. */
  const afterFlush =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      queue.flush();
      return call(...args);
    };

  function isKnown(sessionKey: string): boolean {
    return queue.hasPending(sessionKey) || exists.get(sessionKey) !== undefined;
  }

  const replaceTx = db.transaction((sessionKey: string, messages: readonly TranscriptMessage[], now: number) => {
    if (exists.get(sessionKey) === undefined) throw sessionNotFound(sessionKey, 'sessionKey');
    deleteMessages.run(sessionKey);
    writes.insertMessages(sessionKey, messages.map(messageRowValues));
    setCount.run(messages.length, now, sessionKey);
  });
  const createTx = db.transaction((session: Omit<SessionRecord, 'messageCount' | 'updatedAt'>) => {
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
    return { session: toSessionRecord(row), created: inserted.changes > 0 };
  });

  return {
    flush: () => queue.flush(),
    async get(sessionKey) {
      settle(sessionKey);
      return shared.get(sessionKey);
    },
    async ensure(session) {
      settle(session.sessionKey);
      // An existing session (every turn after the first) is one read, no write transaction.
      const row = selectOne.get(session.sessionKey);
      return row === undefined ? createTx(session) : { session: toSessionRecord(row), created: false };
    },
    async append(sessionKey, messages, now) {
      const rows = messages.map(messageRowValues);
      if (!isKnown(sessionKey)) throw sessionNotFound(sessionKey, 'sessionKey');
      await queue.enqueue({ kind: 'append', sessionKey, rows, now }, charsOf(rows));
    },
    async history(sessionKey, limit, signal) {
      signal?.throwIfAborted();
      settle(sessionKey);
      return shared.history(sessionKey, limit);
    },
    async replaceHistory(sessionKey, messages, now) {
      queue.flush();
      replaceTx(sessionKey, messages, now);
    },
    list: afterFlush(shared.list),
    countByChannel: afterFlush(shared.countByChannel),
    delete: afterFlush(shared.delete),
    clearMessages: afterFlush(shared.clearMessages),
    // Not queued: it runs once per compaction, not per turn, and its answer must come from the row itself.
    updateMetadata: afterFlush(shared.updateMetadata),
    async recordTurnUsage(sessionKey, usage, now) {
      if (!isKnown(sessionKey)) return false;
      const { totalTokens, totalCost, stepsExecuted, requestedBy, outcome } = usage;
      const taken = {
        totalTokens,
        totalCost,
        stepsExecuted,
        requestedBy,
        ...(outcome === undefined ? {} : { outcome }),
      };
      try {
        await queue.enqueue({ kind: 'usage', sessionKey, usage: taken, now }, requestedBy.length);
      } catch (error) {
        // Another connection deleted the session before the commit: absent, as if it had been gone at the call.
        if (isGatewayError(error) && error.kind === 'not_found') return false;
        throw error;
      }
      return true;
    },
    async search(query, limit, ownedBy, signal) {
      signal?.throwIfAborted();
      queue.flush();
      return search(query, limit, ownedBy);
    },
    // After the queue: a queued append is activity that keeps its session from expiring.
    expireIdle: afterFlush(lifecycle.expireIdle),
    archiveFinishedSubAgents: afterFlush(lifecycle.archiveFinishedSubAgents),
    deleteExpired: afterFlush(lifecycle.deleteExpired),
    restartExpired: afterFlush(lifecycle.restartExpired),
  };
}
