// The ResponsePort on both dialects: which session each POST /v1/responses id belongs to, its status and body.
import {
  RESPONSE_STATUSES,
  type ResponseRecord,
  type ResponsePort,
  type ResponseStatus,
  type StoredResponse,
} from '../index.js';
import { first, flag, isAnyOf, isSet, prepared, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

type ResponseRow = Tables['openai_responses'];

const statusOf = (value: string): ResponseStatus => RESPONSE_STATUSES.find((status) => status === value) ?? 'completed';

function toRecord(row: Omit<ResponseRow, 'body'>): ResponseRecord {
  return {
    responseId: row.response_id,
    sessionKey: row.session_key,
    clientId: row.client_id,
    createdAt: row.created_at,
    status: statusOf(row.status),
    isBackground: isSet(row.background),
  };
}

const COLUMNS = ['response_id', 'session_key', 'client_id', 'created_at', 'status', 'background'] as const;

export function createResponsePort(store: StoreDb): ResponsePort {
  const { db } = store;
  const insert = prepared((row: ResponseRow) => db.insertInto('openai_responses').values(row));
  const withId = (responseId: string) => db.selectFrom('openai_responses').where('response_id', '=', responseId);
  // The body only when asked for: previous_response_id needs the session, not a response that may be large.
  const byId = prepared((args: { responseId: string }) => withId(args.responseId).select(COLUMNS));
  const withBody = prepared((args: { responseId: string }) => withId(args.responseId).selectAll());
  return {
    async save(record, body) {
      await store.changes(
        insert({
          response_id: record.responseId,
          session_key: record.sessionKey,
          client_id: record.clientId,
          created_at: record.createdAt,
          status: record.status,
          background: flag(store, record.isBackground),
          body,
        }),
      );
    },
    get: async (responseId) => (await store.rows(byId({ responseId }))).map(toRecord)[0],
    async read(responseId): Promise<StoredResponse | undefined> {
      const row = await first(store, withBody({ responseId }));
      return row === undefined ? undefined : { ...toRecord(row), body: row.body ?? undefined };
    },
    // One conditional UPDATE: of a cancel and an ending racing (on any replica), exactly one wins.
    async transition(responseId, from, to, body) {
      const update = db
        .updateTable('openai_responses')
        .set({ status: to, body })
        .where('response_id', '=', responseId)
        .where(isAnyOf(store, 'status', from));
      return (await store.changes(update)) > 0;
    },
    async delete(responseId) {
      return (await store.changes(db.deleteFrom('openai_responses').where('response_id', '=', responseId))) > 0;
    },
    // One bounded statement per batch (openai_responses_by_created), so a large backlog never holds the database long.
    purgeCreatedBefore: (cutoffMs, limit) =>
      store.changes(
        db
          .deleteFrom('openai_responses')
          .where('response_id', 'in', (sub) =>
            sub
              .selectFrom('openai_responses')
              .select('response_id')
              .where('created_at', '<', cutoffMs)
              .orderBy('created_at')
              .limit(limit),
          ),
      ),
  };
}
