// SQLite implementation of the ResponsePort: which session each POST /v1/responses id belongs to.
import type { ResponseRecord, ResponsePort } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';

interface ResponseRow {
  response_id: string;
  session_key: string;
  client_id: string;
  created_at: number;
}

export function createSqliteResponsePort(db: SqliteDatabase): ResponsePort {
  const insert = db.prepare('INSERT INTO openai_responses (response_id, session_key, client_id, created_at) VALUES (?, ?, ?, ?)');
  const byId = db.prepare<[string], ResponseRow>('SELECT response_id, session_key, client_id, created_at FROM openai_responses WHERE response_id = ?');
  return {
    async save(record) {
      insert.run(record.responseId, record.sessionKey, record.clientId, record.createdAt);
    },
    async get(responseId): Promise<ResponseRecord | undefined> {
      const row = byId.get(responseId);
      return row === undefined
        ? undefined
        : { responseId: row.response_id, sessionKey: row.session_key, clientId: row.client_id, createdAt: row.created_at };
    },
  };
}
