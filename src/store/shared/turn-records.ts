// The trajectory as the EvidencePort reads it: each turn's steps (one JSON array text per `turns` row, parsed once in
// JS) and the records kept outside any turn's row (`loose_records`), in one read order with `seq` derived at read time.
import { sql, type Compilable, type RawBuilder } from 'kysely';
import type { AgentTrajectory, EvidencePort, StoredTrajectory, TurnStep } from '../ports/evidence.js';
import { contains, first, flag, isAnyOf, type StoreDb } from './store-db.js';
import { AscendingMerge, newestMerged, type LooseRow, type ReadRecord, type TurnStepsRow } from './turn-steps.js';

type RecordReads = Pick<
  EvidencePort,
  'trajectoryOf' | 'trajectoryCountOf' | 'trajectoryOfKind' | 'trajectoryOfTurnsIn'
>;

/** A turn's steps as its row stores them: `[kind, ts, data]` each, encoded once. */
export const encodeSteps = (steps: readonly TurnStep[]): string =>
  JSON.stringify(steps.map((step) => [step.kind, step.ts, step.data]));

/** Turns of a window read per page (oldest first), so a wide window never holds every turn's steps at once. */
const WINDOW_PAGE_TURNS = 10_000;

const compiled = <R>(store: StoreDb, query: RawBuilder<R>): Compilable<R> => ({
  compile: () => query.compile(store.db),
});

const TURN_COLUMNS = sql`t.session_key AS "sessionKey", t.trace_id AS "traceId", t.agent_id AS "agentId",
  t.started_at AS "startedAt", t.steps`;
const LOOSE_COLUMNS = sql`r.session_key AS "sessionKey", r.trace_id AS "traceId", u.agent_id AS "agentId", r.ts,
  r.kind, r.data`;

const LOOSE_VALUES = sql`r.ts, r.kind, r.data`;

/** The records as trajectory records, `seq` counted on from `firstSeq` in the order given. */
const withSeq = (records: readonly ReadRecord[], firstSeq: number): StoredTrajectory[] =>
  records.map(({ sessionKey, traceId, kind, ts, data }, index) => ({
    sessionKey,
    traceId,
    kind,
    ts,
    data,
    seq: firstSeq + index,
  }));

export function createRecordReads(store: StoreDb): RecordReads {
  const rows = <R>(query: RawBuilder<R>) => store.rows(compiled(store, query));
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
      // One round trip: the session's turns (in start order), then its loose records (in time, then append order); the
      // agent is not part of these records, so no join finds it.
      const both = await rows<TurnStepsRow & LooseRow & { loose: number }>(sql`SELECT 0 AS loose, ${TURN_COLUMNS},
          NULL AS ts, NULL AS kind, NULL AS data, t.started_at AS k1, t.trace_id AS k2, 0 AS k3
        FROM turns t WHERE t.session_key = ${sessionKey}
        UNION ALL
        SELECT 1, r.session_key, r.trace_id, NULL, NULL, NULL, ${LOOSE_VALUES}, r.ts, '', r.id
        FROM loose_records r WHERE r.session_key = ${sessionKey}
        ORDER BY loose, k1, k2, k3`);
      const turns = both.filter((row) => Number(row.loose) === 0);
      const loose = both.filter((row) => Number(row.loose) === 1);
      const merge = new AscendingMerge(loose, Infinity);
      for (const turn of turns) merge.turn(turn);
      const all = merge.end().records;
      const newest = options?.newest;
      if (newest === undefined || newest >= all.length) return withSeq(all, 1);
      return withSeq(all.slice(all.length - newest), all.length - newest + 1);
    },
    async trajectoryCountOf(sessionKey, signal) {
      signal?.throwIfAborted();
      return countInSession(sessionKey);
    },
    async trajectoryOfKind({ kind, agentId, newest }, signal) {
      signal?.throwIfAborted();
      // Each candidate turn holds the kind, so the newest `newest` candidates hold the newest `newest` steps of it; the
      // text test only picks candidates (a step starts `["kind",`), the JSON parse decides.
      const agent = (alias: string) => (agentId === undefined ? sql`` : sql`AND ${sql.ref(alias)} = ${agentId}`);
      const turns = await rows<TurnStepsRow>(sql`SELECT ${TURN_COLUMNS} FROM turns t
        WHERE ${contains(store, 't.steps', JSON.stringify([kind]).slice(0, -1) + ',')} ${agent('t.agent_id')}
        ORDER BY t.started_at DESC, t.trace_id DESC LIMIT ${newest}`);
      const loose = await rows<LooseRow>(sql`SELECT ${LOOSE_COLUMNS} FROM loose_records r
        INNER JOIN turns u ON u.trace_id = r.trace_id WHERE r.kind = ${kind} ${agent('u.agent_id')}
        ORDER BY r.ts DESC, r.id DESC LIMIT ${newest}`);
      const records = newestMerged(turns, loose, newest, new Set([kind])).reverse();
      return records.map((record, index): AgentTrajectory => ({
        ...record,
        agentId: record.agentId ?? '',
        seq: index + 1,
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
      const loose = await rows<LooseRow>(sql`SELECT ${LOOSE_COLUMNS} FROM loose_records r
        INNER JOIN turns u ON u.trace_id = r.trace_id WHERE ${window('u')} AND ${isAnyOf(store, 'r.kind', kinds)}
        ORDER BY r.ts, r.id`);
      const merge = new AscendingMerge(loose, limit, new Set(kinds));
      // Keyset pages in (started_at, trace_id) order: the start index bounds each page.
      let after: { startedAt: number; traceId: string } | undefined;
      for (;;) {
        signal?.throwIfAborted();
        const from =
          after === undefined
            ? sql``
            : sql`AND t.started_at >= ${after.startedAt}
                AND (t.started_at > ${after.startedAt} OR t.trace_id > ${after.traceId})`;
        const page = await rows<TurnStepsRow>(sql`SELECT ${TURN_COLUMNS} FROM turns t WHERE ${window('t')} ${from}
          ORDER BY t.started_at, t.trace_id LIMIT ${WINDOW_PAGE_TURNS}`);
        for (const turn of page) merge.turn(turn);
        const last = page.at(-1);
        if (last === undefined || page.length < WINDOW_PAGE_TURNS) break;
        after = { startedAt: Number(last.startedAt), traceId: last.traceId };
      }
      merge.end();
      return { rows: withSeq(merge.records, 1), total: merge.count };
    },
  };
}
