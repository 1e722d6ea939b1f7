// The SQLite session port's group commit: one transaction per event-loop turn, bounded queues, failures reported.
import Database from 'better-sqlite3';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/obs/index.js';
import { createSqliteSessionPort, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import type { SessionPort, TranscriptMessage } from '../../../src/store/index.js';

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/**
 * Transactions committed to the WAL since it was last reset, read from the file as SQLite wrote it (sqlite.org
 * fileformat2 §4.1): each frame header holds the database size in pages for a commit frame and 0 otherwise, and
 * frames of the current WAL carry the header's salts.
 */
async function walCommits(path: string): Promise<number> {
  const wal = await readFile(`${path}-wal`);
  if (wal.length < WAL_HEADER_BYTES) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (
    let offset = WAL_HEADER_BYTES;
    offset + FRAME_HEADER_BYTES + pageSize <= wal.length;
    offset += FRAME_HEADER_BYTES + pageSize
  ) {
    if (wal.readUInt32BE(offset + 8) !== salt1 || wal.readUInt32BE(offset + 12) !== salt2) break;
    if (wal.readUInt32BE(offset + 4) !== 0) commits += 1;
  }
  return commits;
}

const user = (content: string): TranscriptMessage => ({ role: 'user', content, timestamp: 1 });
const session = (sessionKey: string) => ({
  sessionKey,
  agentId: 'default',
  tenantId: 'default',
  kind: 'dm' as const,
  createdAt: 1,
  metadata: {},
  ownerId: 'owner',
});

describe('sqlite session write queue', () => {
  let dir: string;
  let path: string;
  let db: SqliteDatabase;
  let observer: Database.Database;
  let logLines: string[];
  let store: SessionPort;
  const dataVersion = () => observer.pragma('data_version', { simple: true });
  const storedMessages = () => observer.prepare('SELECT count(*) FROM session_messages').pluck().get();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-write-queue-'));
    path = join(dir, 'gateway.db');
    db = openDatabase({ path });
    // A second connection sees only what was committed to the file.
    observer = new Database(path, { readonly: true });
    logLines = [];
  });
  afterEach(async () => {
    observer.close();
    if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  });

  function openPort(limits = { maxQueuedMessages: 1_000, maxQueuedChars: 1_000_000 }): SessionPort {
    const log = createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(line) } });
    return createSqliteSessionPort(db, { log, limits });
  }

  it('writes the appends and usage of turns finishing in one event-loop turn in one transaction', async () => {
    store = openPort();
    const keys = Array.from({ length: 10 }, (_, index) => `default:user${index}:ws`);
    for (const key of keys) await store.ensure(session(key));
    const commitsBefore = await walCommits(path);
    const versionBefore = dataVersion();
    // What another connection sees from the file at the moment each call answers.
    const answers = Promise.all(
      keys.flatMap((key) =>
        [
          store.append(key, [user(`${key} one`), user(`${key} two`)], 2),
          store.append(key, [user(`${key} three`)], 3),
          store.recordTurnUsage(key, { totalTokens: 1, totalCost: 0, stepsExecuted: 1, requestedBy: 'owner' }, 4),
        ].map((write) => write.then(() => storedMessages())),
      ),
    );
    // Every write is queued, and nothing reached the file yet.
    expect(dataVersion()).toBe(versionBefore);
    expect(storedMessages()).toBe(0);
    // No call answers before the one transaction holding all of them committed.
    expect(new Set(await answers)).toEqual(new Set([30]));
    expect(dataVersion()).not.toBe(versionBefore);
    expect(await walCommits(path)).toBe(commitsBefore + 1);

    // The same writes one after the other are one commit each: the count above is not a constant.
    for (const key of keys) await store.append(key, [user('later')], 5);
    expect(await walCommits(path)).toBe(commitsBefore + 1 + keys.length);
  });

  it('writes at once, without waiting for the tick, when the queue reaches its message or character limit', async () => {
    store = openPort({ maxQueuedMessages: 4, maxQueuedChars: 1_000 });
    await store.ensure(session('default:a:ws'));
    const three = store.append('default:a:ws', [user('one'), user('two'), user('three')], 2);
    expect(storedMessages()).toBe(0);
    const four = store.append('default:a:ws', [user('four')], 3);
    expect(storedMessages()).toBe(4);
    await Promise.all([three, four]);
    const long = store.append('default:a:ws', [user('x'.repeat(1_000))], 4);
    expect(storedMessages()).toBe(5);
    await long;
  });

  it('logs the session keys of writes to a session another connection deleted, keeps the others, and reads what is stored', async () => {
    store = openPort();
    await store.ensure(session('default:gone:ws'));
    await store.ensure(session('default:kept:ws'));
    const keptMessage = store.append('default:kept:ws', [user('kept message')], 2);
    const goneMessage = store.append('default:gone:ws', [user('confidential body text')], 2);
    const goneUsage = store.recordTurnUsage(
      'default:gone:ws',
      { totalTokens: 1, totalCost: 0, stepsExecuted: 1, requestedBy: 'owner' },
      3,
    );
    const keptReply = store.append('default:kept:ws', [user('kept reply')], 3);
    const other = openDatabase({ path });
    try {
      other.prepare('DELETE FROM sessions WHERE session_key = ?').run('default:gone:ws');
    } finally {
      other.close();
    }
    // Each call answers for its own write: the dropped ones as if the session had been gone when they were made.
    await expect(goneMessage).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(await goneUsage).toBe(false);
    await Promise.all([keptMessage, keptReply]);
    expect((await store.history('default:kept:ws')).map((message) => message.content)).toEqual([
      'kept message',
      'kept reply',
    ]);
    expect(await store.get('default:kept:ws')).toMatchObject({ messageCount: 2 });
    expect(await store.get('default:gone:ws')).toBeUndefined();
    expect(await store.history('default:gone:ws')).toEqual([]);
    await expect(store.append('default:gone:ws', [user('again')], 4)).rejects.toThrow(
      expect.objectContaining({ kind: 'not_found' }),
    );
    const errors = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ sessionKeys: ['default:gone:ws'], droppedMessages: 1, droppedUsage: 1 });
    expect(logLines.join('\n')).not.toContain('confidential');
  });

  it('logs the writes a closed database could not take, and the file holds what was committed before', async () => {
    store = openPort();
    await store.ensure(session('default:a:ws'));
    await store.append('default:a:ws', [user('stored')], 2);
    const queued = store.append('default:a:ws', [user('queued when the file closed')], 3);
    db.close();
    await expect(queued).rejects.toThrow('the database was closed before the queued writes were flushed');
    const errors = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.level === 'error');
    expect(errors).toMatchObject([{ sessionKeys: ['default:a:ws'], droppedMessages: 1, droppedUsage: 0 }]);
    db = openDatabase({ path });
    const reopened = createSqliteSessionPort(db);
    expect((await reopened.history('default:a:ws')).map((message) => message.content)).toEqual(['stored']);
    expect(await reopened.get('default:a:ws')).toMatchObject({ messageCount: 1 });
  });

  it('answers the writes still queued at shutdown once the shutdown has written them', async () => {
    const port = createSqliteSessionPort(db, { limits: { maxQueuedMessages: 1_000, maxQueuedChars: 1_000_000 } });
    await port.ensure(session('default:a:ws'));
    const append = port.append('default:a:ws', [user('queued at shutdown')], 2);
    const usage = port.recordTurnUsage(
      'default:a:ws',
      { totalTokens: 3, totalCost: 0, stepsExecuted: 1, requestedBy: 'owner' },
      3,
    );
    // What StorePorts.close() does before it closes the file.
    port.flush();
    db.close();
    await append;
    expect(await usage).toBe(true);
    db = openDatabase({ path });
    const reopened = createSqliteSessionPort(db);
    expect((await reopened.history('default:a:ws')).map((message) => message.content)).toEqual(['queued at shutdown']);
    expect(await reopened.get('default:a:ws')).toMatchObject({
      messageCount: 1,
      metadata: { usage: { totalTokens: 3, turns: 1 } },
    });
  });

  it('stores the messages as they were when appended, whatever the caller changes afterwards', async () => {
    store = openPort();
    await store.ensure(session('default:a:ws'));
    const messages = [user('original')];
    await store.append('default:a:ws', messages, 2);
    messages.push(user('added later'));
    Object.assign(messages[0] ?? {}, { content: 'changed later' });
    expect((await store.history('default:a:ws')).map((message) => message.content)).toEqual(['original']);
  });
});
