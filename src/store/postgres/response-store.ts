// PostgreSQL implementation of the ResponsePort: which session each POST /v1/responses id belongs to, and its body.
import type { ResponseRecord, ResponsePort } from '../ports/index.js';
import type { Queryable } from './pool.js';

interface ResponseRow {
  response_id: string;
  session_key: string;
  client_id: string;
  created_at: number;
  body: string | null;
}

function toRecord(row: ResponseRow): ResponseRecord {
  return { responseId: row.response_id, sessionKey: row.session_key, clientId: row.client_id, createdAt: row.created_at };
}

export function createPostgresResponsePort(db: Queryable): ResponsePort {
  const byId = async (responseId: string) =>
    (await db.query<ResponseRow>('SELECT response_id, session_key, client_id, created_at, body FROM openai_responses WHERE response_id = $1', [responseId])).rows[0];
  return {
    async save(record, body) {
      await db.query('INSERT INTO openai_responses (response_id, session_key, client_id, created_at, body) VALUES ($1, $2, $3, $4, $5)', [
        record.responseId,
        record.sessionKey,
        record.clientId,
        record.createdAt,
        body,
      ]);
    },
    async get(responseId) {
      const row = await byId(responseId);
      return row === undefined ? undefined : toRecord(row);
    },
    async read(responseId) {
      const row = await byId(responseId);
      return row === undefined ? undefined : { ...toRecord(row), body: row.body ?? undefined };
    },
    async delete(responseId) {
      return ((await db.query('DELETE FROM openai_responses WHERE response_id = $1', [responseId])).rowCount ?? 0) > 0;
    },
    // One bounded statement per batch (openai_responses_by_created), so a large backlog never holds locks long.
    async purgeCreatedBefore(cutoffMs, limit) {
      const result = await db.query(
        `DELETE FROM openai_responses WHERE response_id IN
           (SELECT response_id FROM openai_responses WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
        [cutoffMs, limit],
      );
      return result.rowCount ?? 0;
    },
  };
}
