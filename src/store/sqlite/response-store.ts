// SQLite implementation of the ResponsePort: which session each POST /v1/responses id belongs to, its status and body.
import {
  RESPONSE_STATUSES,
  type ResponseRecord,
  type ResponsePort,
  type ResponseStatus,
  type StoredResponse,
} from '../ports/index.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

interface ResponseRow {
  response_id: string;
  session_key: string;
  client_id: string;
  created_at: number;
  status: string;
  background: number;
}

interface BodyRow extends ResponseRow {
  body: string | null;
}

const COLUMNS = 'response_id, session_key, client_id, created_at, status, background';

const statusOf = (value: string): ResponseStatus => RESPONSE_STATUSES.find((status) => status === value) ?? 'completed';

function toRecord(row: ResponseRow): ResponseRecord {
  return {
    responseId: row.response_id,
    sessionKey: row.session_key,
    clientId: row.client_id,
    createdAt: row.created_at,
    status: statusOf(row.status),
    isBackground: row.background === 1,
  };
}

export function createSqliteResponsePort(db: SqliteDatabase): ResponsePort {
  const insert = db.prepare(`INSERT INTO openai_responses (${COLUMNS}, body) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const byId = db.prepare<[string], ResponseRow>(`SELECT ${COLUMNS} FROM openai_responses WHERE response_id = ?`);
  const withBody = db.prepare<[string], BodyRow>(`SELECT ${COLUMNS}, body FROM openai_responses WHERE response_id = ?`);
  const remove = db.prepare('DELETE FROM openai_responses WHERE response_id = ?');
  // One bounded statement per batch (openai_responses_by_created), so a large backlog never holds the database long.
  const purge = db.prepare(
    'DELETE FROM openai_responses WHERE rowid IN (SELECT rowid FROM openai_responses WHERE created_at < ? ORDER BY created_at LIMIT ?)',
  );
  // One conditional UPDATE per number of `from` statuses: of a cancel and an ending racing, exactly one wins.
  const transitions = new Map<number, Statement<unknown[]>>();
  const transitionFrom = (count: number) => {
    let statement = transitions.get(count);
    if (statement === undefined) {
      statement = db.prepare<unknown[]>(
        `UPDATE openai_responses SET status = ?, body = ? WHERE response_id = ? AND status IN (${Array(count).fill('?').join(', ')})`,
      );
      transitions.set(count, statement);
    }
    return statement;
  };
  return {
    async save(record, body) {
      insert.run(
        record.responseId,
        record.sessionKey,
        record.clientId,
        record.createdAt,
        record.status,
        record.isBackground ? 1 : 0,
        body,
      );
    },
    async get(responseId) {
      const row = byId.get(responseId);
      return row === undefined ? undefined : toRecord(row);
    },
    async read(responseId): Promise<StoredResponse | undefined> {
      const row = withBody.get(responseId);
      return row === undefined ? undefined : { ...toRecord(row), body: row.body ?? undefined };
    },
    async transition(responseId, from, to, body) {
      if (from.length === 0) return false;
      return transitionFrom(from.length).run(to, body, responseId, ...from).changes > 0;
    },
    async delete(responseId) {
      return remove.run(responseId).changes > 0;
    },
    async purgeCreatedBefore(cutoffMs, limit) {
      return purge.run(cutoffMs, limit).changes;
    },
  };
}
