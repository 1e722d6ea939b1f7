// PostgreSQL implementation of the MediaPort: one row per stored media file, found by id or by expiry.
import { GatewayError } from '../../errors.js';
import type { MediaPort, MediaRecord } from '../ports/index.js';
import { sqlState, UNIQUE_VIOLATION, type Queryable } from './pool.js';

interface MediaRow {
  id: string;
  content_type: string | null;
  size: number;
  saved_at: number;
  expires_at: number | null;
  owner_id: string | null;
}

const COLUMNS = 'id, content_type, size, saved_at, expires_at, owner_id';

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

export function createPostgresMediaPort(db: Queryable): MediaPort {
  return {
    async create(record) {
      try {
        await db.query(`INSERT INTO media (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
          record.id,
          record.contentType,
          record.size,
          record.savedAt,
          record.expiresAt,
          record.ownerId,
        ]);
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION)
          throw new GatewayError('conflict', `Media '${record.id}' already exists`, { param: 'id' });
        throw error;
      }
    },
    async get(id) {
      const row = (await db.query<MediaRow>(`SELECT ${COLUMNS} FROM media WHERE id = $1`, [id])).rows[0];
      return row === undefined ? undefined : toRecord(row);
    },
    async expired(now, limit, signal) {
      signal?.throwIfAborted();
      const result = await db.query<{ id: string }>(
        'SELECT id FROM media WHERE expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2',
        [now, limit],
      );
      return result.rows.map((row) => row.id);
    },
    // One array parameter, however many ids: no statement-size limit to split around.
    async existing(ids) {
      if (ids.length === 0) return new Set();
      const result = await db.query<{ id: string }>('SELECT id FROM media WHERE id = ANY($1::text[])', [ids]);
      return new Set(result.rows.map((row) => row.id));
    },
    async remove(ids) {
      if (ids.length === 0) return 0;
      return (await db.query('DELETE FROM media WHERE id = ANY($1::text[])', [ids])).rowCount ?? 0;
    },
  };
}
