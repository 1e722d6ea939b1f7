// The trajectory as the EvidencePort reads it: each turn's steps (one JSON array text per `turns` row) and the records
// kept outside any turn's row (`loose_records`), in one read order with `seq` derived at read time, on both dialects.
import { sql, type Compilable, type RawBuilder } from 'kysely';
import type { AgentTrajectory, EvidencePort, StoredTrajectory, TurnStep } from '../ports/evidence.js';
import { toTrajectory } from './evidence-rows.js';
import { contains, first, flag, type StoreDb } from './store-db.js';

type RecordReads = Pick<
  EvidencePort,
  'trajectoryOf' | 'trajectoryCountOf' | 'trajectoryOfKind' | 'trajectoryOfTurnsIn'
>;

/** A turn's steps as its row stores them: `[kind, ts, data]` each, encoded once. */
export const encodeSteps = (steps: readonly TurnStep[]): string =>
  JSON.stringify(steps.map((step) => [step.kind, step.ts, step.data]));

interface RecordFilter {
  /** Over the turn `t` whose steps are read. */
  turns: RawBuilder<unknown>;
  /** Over the loose record `r` and its turn `u` (absent unless `looseOfTurnsOnly`). */
  loose: RawBuilder<unknown>;
  /** Only loose records of a turn that has a row (an inner join), as reads of indexed turns want. */
  looseOfTurnsOnly: boolean;
  /** Only records of these kinds. */
  kinds?: readonly string[];
}

interface RecordRow {
  sessionKey: string;
  traceId: string;
  agentId: string | null;
  ts: number;
  kind: string;
  data: string;
}

const compiled = <R>(store: StoreDb, query: RawBuilder<R>): Compilable<R> => ({
  compile: () => query.compile(store.db),
});

const kindIn = (store: StoreDb, column: RawBuilder<unknown>, kinds: readonly string[]) =>
  store.dialect === 'sqlite'
    ? sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(kinds)}))`
    : sql`${column} = ANY(${[...kinds]}::text[])`;

/**
 * The records passing `filter`, with their order keys: a turn's steps by the turn's start, trace and index; a loose
 * record by its own time, then append order (ahead of the steps of a turn started at that same time).
 */
function records(store: StoreDb, filter: RecordFilter): RawBuilder<unknown> {
  const isSqlite = store.dialect === 'sqlite';
  const stepKind = sql`(j.value ->> 0)`;
  const steps = isSqlite
    ? sql`SELECT t.session_key, t.trace_id, t.agent_id, j.value ->> 1 AS ts, j.value ->> 0 AS kind, j.value -> 2 AS data,
        t.started_at AS k1, t.trace_id AS k2, 0 AS k3, j.key AS k4 FROM turns t, json_each(t.steps) j`
    : sql`SELECT t.session_key, t.trace_id, t.agent_id, (j.value ->> 1)::bigint AS ts, j.value ->> 0 AS kind,
        (j.value -> 2)::text AS data, t.started_at AS k1, t.trace_id AS k2, 0 AS k3, j.k4::bigint AS k4
        FROM turns t CROSS JOIN LATERAL json_array_elements(t.steps::json) WITH ORDINALITY AS j(value, k4)`;
  const join = filter.looseOfTurnsOnly ? sql`INNER JOIN` : sql`LEFT JOIN`;
  const id = isSqlite ? sql`r.id` : sql`r.id::bigint`;
  const kinds = filter.kinds;
  const stepWhere = kinds === undefined ? filter.turns : sql`${filter.turns} AND ${kindIn(store, stepKind, kinds)}`;
  const looseWhere = kinds === undefined ? filter.loose : sql`${filter.loose} AND ${kindIn(store, sql`r.kind`, kinds)}`;
  return sql`${steps} WHERE ${stepWhere}
    UNION ALL
    SELECT r.session_key, r.trace_id, u.agent_id, r.ts, r.kind, r.data, r.ts, '', 1, ${id}
    FROM loose_records r ${join} turns u ON u.trace_id = r.trace_id WHERE ${looseWhere}`;
}

const COLUMNS = sql`session_key AS "sessionKey", trace_id AS "traceId", agent_id AS "agentId", ts, kind, data`;

/** Rows in read order (or newest first), at most `limit`. */
async function read(
  store: StoreDb,
  filter: RecordFilter,
  options: { newestFirst?: boolean; limit?: number },
): Promise<RecordRow[]> {
  const direction = sql.raw(options.newestFirst === true ? 'DESC' : 'ASC');
  const limit = options.limit === undefined ? sql`` : sql`LIMIT ${options.limit}`;
  const query = sql<RecordRow>`SELECT ${COLUMNS} FROM (${records(store, filter)}) AS records
    ORDER BY k1 ${direction}, k2 ${direction}, k3 ${direction}, k4 ${direction} ${limit}`;
  return store.rows(compiled(store, query));
}

async function countOf(store: StoreDb, filter: RecordFilter): Promise<number> {
  const query = sql<{ n: number }>`SELECT COUNT(*) AS n FROM (${records(store, filter)}) AS records`;
  return Number((await first(store, compiled(store, query)))?.n ?? 0);
}

/** The rows as trajectory records, `seq` counted on from `firstSeq` in the order given. */
const withSeq = (rows: readonly RecordRow[], firstSeq: number): StoredTrajectory[] =>
  rows.map(({ agentId: _agentId, ...row }, index) =>
    toTrajectory({ ...row, ts: Number(row.ts), seq: firstSeq + index }),
  );

export function createRecordReads(store: StoreDb): RecordReads {
  const ofSession = (sessionKey: string): RecordFilter => ({
    turns: sql`t.session_key = ${sessionKey}`,
    loose: sql`r.session_key = ${sessionKey}`,
    looseOfTurnsOnly: false,
  });
  const countInSession = async (sessionKey: string): Promise<number> => {
    const length = store.dialect === 'sqlite' ? sql`json_array_length(steps)` : sql`json_array_length(steps::json)`;
    const query = sql<{ n: number }>`SELECT
      (SELECT COALESCE(SUM(${length}), 0) FROM turns WHERE session_key = ${sessionKey})
      + (SELECT COUNT(*) FROM loose_records WHERE session_key = ${sessionKey}) AS n`;
    return Number((await first(store, compiled(store, query)))?.n ?? 0);
  };
  return {
    async trajectoryOf(sessionKey, options, signal) {
      signal?.throwIfAborted();
      const newest = options?.newest;
      if (newest === undefined) return withSeq(await read(store, ofSession(sessionKey), {}), 1);
      const total = await countInSession(sessionKey);
      const rows = (await read(store, ofSession(sessionKey), { newestFirst: true, limit: newest })).reverse();
      return withSeq(rows, total - rows.length + 1);
    },
    async trajectoryCountOf(sessionKey, signal) {
      signal?.throwIfAborted();
      return countInSession(sessionKey);
    },
    async trajectoryOfKind({ kind, agentId, newest }, signal) {
      signal?.throwIfAborted();
      // Each candidate turn holds the kind, so the newest `newest` candidates hold the newest `newest` steps of it; the
      // text test only picks candidates (a step starts `["kind",`), the JSON test below decides.
      const agent = (alias: string) => (agentId === undefined ? sql`` : sql`AND ${sql.ref(alias)} = ${agentId}`);
      const candidates = sql`SELECT c.trace_id FROM turns c WHERE ${contains(store, 'c.steps', JSON.stringify([kind]).slice(0, -1) + ',')} ${agent('c.agent_id')}
        ORDER BY c.started_at DESC, c.trace_id DESC LIMIT ${newest}`;
      const filter: RecordFilter = {
        turns: sql`t.trace_id IN (${candidates})`,
        loose: sql`1 = 1 ${agent('u.agent_id')}`,
        looseOfTurnsOnly: true,
        kinds: [kind],
      };
      const rows = (await read(store, filter, { newestFirst: true, limit: newest })).reverse();
      return withSeq(rows, 1).map((record, index): AgentTrajectory => ({
        ...record,
        agentId: rows[index]?.agentId ?? '',
      }));
    },
    async trajectoryOfTurnsIn({ sinceMs, untilMs, includeSynthetic, kinds, limit }, signal) {
      signal?.throwIfAborted();
      const window = (alias: string) => {
        const start = sql.ref(`${alias}.started_at`);
        const inWindow = sql`${start} >= ${sinceMs} AND ${start} <= ${untilMs}`;
        return includeSynthetic
          ? inWindow
          : sql`${inWindow} AND ${sql.ref(`${alias}.synthetic`)} = ${flag(store, false)}`;
      };
      const filter: RecordFilter = { turns: window('t'), loose: window('u'), looseOfTurnsOnly: true, kinds };
      const rows = withSeq(await read(store, filter, { limit }), 1);
      return { rows, total: rows.length < limit ? rows.length : await countOf(store, filter) };
    },
  };
}
