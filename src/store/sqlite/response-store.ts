// SQLite implementation of the ResponsePort: which session each POST /v1/responses id belongs to, and its body.
import type { ResponseRecord, ResponsePort, StoredResponse } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';

interface ResponseRow {
  response_id: string;
  session_key: string;
  client_id: string;
  created_at: number;
}

interface BodyRow extends ResponseRow {
  body: string | null;
}

function toRecord(row: ResponseRow): ResponseRecord {
  return { responseId: row.response_id, sessionKey: row.session_key, clientId: row.client_id, createdAt: row.created_at };
}

export function createSqliteResponsePort(db: SqliteDatabase): ResponsePort {
  const insert = db.prepare('INSERT INTO openai_responses (response_id, session_key, client_id, created_at, body) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[string], ResponseRow>('SELECT response_id, session_key, client_id, created_at FROM openai_responses WHERE response_id = ?');
  const withBody = db.prepare<[string], BodyRow>('SELECT response_id, session_key, client_id, created_at, body FROM openai_responses WHERE response_id = ?');
  const remove = db.prepare('DELETE FROM openai_responses WHERE response_id = ?');
  // One bounded statement per batch (openai_responses_by_created), so a large backlog never holds the database long.
  const purge = db.prepare(
    'DELETE FROM openai_responses WHERE rowid IN (SELECT rowid FROM openai_responses WHERE created_at < ? ORDER BY created_at LIMIT ?)',
  );
  return {
    async save(record, body) {
      insert.run(record.responseId, record.sessionKey, record.clientId, record.createdAt, body);
    },
    async get(responseId) {
      const row = byId.get(responseId);
      return row === undefined ? undefined : toRecord(row);
    },
    async read(responseId): Promise<StoredResponse | undefined> {
      const row = withBody.get(responseId);
      return row === undefined ? undefined : { ...toRecord(row), body: row.body ?? undefined };
    },
    async delete(responseId) {
      return remove.run(responseId).changes > 0;
    },
    async purgeCreatedBefore(cutoffMs, limit) {
      return purge.run(cutoffMs, limit).changes;
    },
  };
}
