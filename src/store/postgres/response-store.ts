// PostgreSQL implementation of the ResponsePort: which session each POST /v1/responses id belongs to, its status and body.
import { RESPONSE_STATUSES, type ResponseRecord, type ResponsePort, type ResponseStatus } from '../ports/index.js';
import type { Queryable } from './pool.js';

interface ResponseRow {
  response_id: string;
  session_key: string;
  client_id: string;
  created_at: number;
  status: string;
  background: boolean;
  body: string | null;
}

const statusOf = (value: string): ResponseStatus => RESPONSE_STATUSES.find((status) => status === value) ?? 'completed';

function toRecord(row: ResponseRow): ResponseRecord {
  return {
    responseId: row.response_id,
    sessionKey: row.session_key,
    clientId: row.client_id,
    createdAt: row.created_at,
    status: statusOf(row.status),
    isBackground: row.background,
  };
}

export function createPostgresResponsePort(db: Queryable): ResponsePort {
  const byId = async (responseId: string) =>
    (
      await db.query<ResponseRow>(
        'SELECT response_id, session_key, client_id, created_at, status, background, body FROM openai_responses WHERE response_id = $1',
        [responseId],
      )
    ).rows[0];
  return {
    async save(record, body) {
      await db.query(
        'INSERT INTO openai_responses (response_id, session_key, client_id, created_at, status, background, body) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [
          record.responseId,
          record.sessionKey,
          record.clientId,
          record.createdAt,
          record.status,
          record.isBackground,
          body,
        ],
      );
    },
    async get(responseId) {
      const row = await byId(responseId);
      return row === undefined ? undefined : toRecord(row);
    },
    async read(responseId) {
      const row = await byId(responseId);
      return row === undefined ? undefined : { ...toRecord(row), body: row.body ?? undefined };
    },
    // One conditional UPDATE: of a cancel and an ending racing on two replicas, exactly one wins.
    async transition(responseId, from, to, body) {
      const result = await db.query(
        'UPDATE openai_responses SET status = $1, body = $2 WHERE response_id = $3 AND status = ANY($4::text[])',
        [to, body, responseId, [...from]],
      );
      return (result.rowCount ?? 0) > 0;
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
