// SQLite implementation of the MediaPort: one row per stored media file, found by id or by expiry.
import { GatewayError } from '../../errors.js';
import type { MediaPort, MediaRecord } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';

interface MediaRow {
  id: string;
  content_type: string | null;
  size: number;
  saved_at: number;
  expires_at: number | null;
  owner_id: string | null;
}

const COLUMNS = 'id, content_type, size, saved_at, expires_at, owner_id';

/** SQLite binds at most 32766 parameters per statement; id lists are split well below that. */
const IDS_PER_STATEMENT = 500;

function toRecord(row: MediaRow): MediaRecord {
  return {
    id: row.id,
    contentType: row.content_type,
    size: row.size,
    savedAt: row.saved_at,
    expiresAt: row.expires_at,
    ownerId: row.owner_id,
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

function isIdTaken(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function createSqliteMediaPort(db: SqliteDatabase): MediaPort {
  const insert = db.prepare(`INSERT INTO media (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`);
  const byId = db.prepare<[string], MediaRow>(`SELECT ${COLUMNS} FROM media WHERE id = ?`);
  const expiredIds = db
    .prepare<[number, number], string>(
      'SELECT id FROM media WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, id LIMIT ?',
    )
    .pluck();
  const existingIn = (count: number) =>
    db.prepare<string[], string>(`SELECT id FROM media WHERE id IN (${Array(count).fill('?').join(', ')})`).pluck();
  const deleteIn = (count: number) =>
    db.prepare(`DELETE FROM media WHERE id IN (${Array(count).fill('?').join(', ')})`);
  const removeAll = db.transaction((ids: readonly string[]): number =>
    chunks(ids, IDS_PER_STATEMENT).reduce((removed, part) => removed + deleteIn(part.length).run(...part).changes, 0),
  );

  return {
    async create(record) {
      try {
        insert.run(record.id, record.contentType, record.size, record.savedAt, record.expiresAt, record.ownerId);
      } catch (error) {
        if (isIdTaken(error))
          throw new GatewayError('conflict', `Media '${record.id}' already exists`, { param: 'id' });
        throw error;
      }
    },
    async get(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toRecord(row);
    },
    async expired(now, limit, signal) {
      signal?.throwIfAborted();
      return expiredIds.all(now, limit);
    },
    async existing(ids) {
      const found = new Set<string>();
      for (const part of chunks(ids, IDS_PER_STATEMENT))
        for (const id of existingIn(part.length).all(...part)) found.add(id);
      return found;
    },
    async remove(ids) {
      return ids.length === 0 ? 0 : removeAll(ids);
    },
  };
}
