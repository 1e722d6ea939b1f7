// The EvidencePort's window reads on both dialects (obs.fleet.health and obs.trace.search): turns, usage,
// health signals and runs of a time window, and the trace search with its conditions.
import type { Compilable, ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { Capped, EvidencePort, TraceCondition, TraceFlagField, TraceTextField } from '../ports/evidence.js';
import { INDEX_COLUMNS, RUN_COLUMNS, SIGNAL_COLUMNS, toIndexRow, toSignal } from './evidence-rows.js';
import { contains, first, flag, isAnyOf, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

type WindowReads = Pick<
  EvidencePort,
  'searchTraces' | 'sessionIndexIn' | 'usageByAgent' | 'healthSignalsIn' | 'latestHealthSignal' | 'runsStartedIn'
>;

const TEXT_COLUMNS: Record<TraceTextField, keyof Tables['turns']> = {
  agentId: 'agent_id',
  channel: 'channel',
  endReason: 'end_reason',
  sessionKey: 'session_key',
  traceId: 'trace_id',
  messageId: 'message_id',
  rootRunId: 'root_run_id',
  day: 'day',
};
const DAY_MS = 86_400_000;
const FLAG_COLUMNS: Record<TraceFlagField, 'degraded' | 'synthetic'> = { degraded: 'degraded', synthetic: 'synthetic' };

/** One trace-search condition over the turns, its value bound. */
function traceCondition(store: StoreDb, eb: ExpressionBuilder<Tables, 'turns'>, condition: TraceCondition) {
  if (condition.field === 'degraded' || condition.field === 'synthetic')
    return eb(FLAG_COLUMNS[condition.field], condition.op === '=' ? '=' : '<>', flag(store, condition.value === true));
  const column = TEXT_COLUMNS[condition.field];
  if (condition.op === '~') return contains(store, column, condition.value);
  if (condition.value === null) return eb(column, condition.op === '=' ? 'is' : 'is not', null);
  // `!=` keeps rows whose value is absent, as a reader would expect.
  return condition.op === '='
    ? eb(column, '=', condition.value)
    : eb.or([eb(column, 'is', null), eb(column, '<>', condition.value)]);
}

/** The conditions joined by AND over the turns: `sql` is the WHERE clause as it runs, every value bound. */
export function compileTraceWhere(
  store: StoreDb,
  conditions: readonly TraceCondition[],
): { sql: string; values: readonly unknown[] } {
  const compiled = store.db
    .selectFrom('turns')
    .selectAll()
    .where((eb) => eb.and(conditions.map((condition) => traceCondition(store, eb, condition))))
    .compile();
  return { sql: compiled.sql.slice(compiled.sql.indexOf(' where ') + ' where '.length), values: compiled.parameters };
}

/** At most `limit` rows; every match is counted only when the limit was reached. */
async function capped<R>(
  store: StoreDb,
  rows: Compilable<R>,
  count: Compilable<{ n: number }>,
  limit: number,
): Promise<Capped<R>> {
  const found = await store.rows(rows);
  if (found.length < limit) return { rows: found, total: found.length };
  return { rows: found, total: (await first(store, count))?.n ?? found.length };
}

export function createWindowReads(store: StoreDb): WindowReads {
  const { db } = store;
  const notSynthetic = flag(store, false);
  return {
    async searchTraces(
      { days, traceId, messageId, chatId, sinceMs, includeSynthetic, conditions = [], limit },
      signal,
    ) {
      signal?.throwIfAborted();
      // A day is the UTC day of the turn's start, so the days read bound the start too, which is indexed.
      const inDays = <Q extends SelectQueryBuilder<Tables, 'turns', object>>(turns: Q): Q => {
        const starts = days.map((day) => Date.parse(`${day}T00:00:00.000Z`)).filter(Number.isFinite);
        const bounded = turns.where(isAnyOf(store, 'day', days)) as Q;
        if (starts.length === 0) return bounded;
        return bounded
          .where('started_at', '>=', Math.min(...starts))
          .where('started_at', '<', Math.max(...starts) + DAY_MS) as Q;
      };
      let query = inDays(db.selectFrom('turns').select(INDEX_COLUMNS));
      if (traceId !== undefined) query = query.where('trace_id', '=', traceId);
      // Spec rule 2: a messageId resolves to one trace first (the newest turn of the days read).
      if (messageId !== undefined)
        query = query.where('trace_id', '=', (eb) =>
          inDays(eb.selectFrom('turns').select('trace_id').where('message_id', '=', messageId))
            .orderBy('started_at', 'desc')
            .orderBy('trace_id', 'desc')
            .limit(1),
        );
      if (chatId !== undefined)
        query = query.where((eb) => eb.or([eb('session_key', '=', chatId), eb('channel', '=', chatId)]));
      if (sinceMs !== undefined) query = query.where('started_at', '>=', sinceMs);
      if (!includeSynthetic) query = query.where('synthetic', '=', notSynthetic);
      if (conditions.length > 0)
        query = query.where((eb) => eb.and(conditions.map((condition) => traceCondition(store, eb, condition))));
      // Newest day first is newest start first (a day is its start's), which the start index gives without a sort.
      const ordered = query.orderBy('started_at', 'desc').orderBy('trace_id', 'desc');
      return (await store.rows(ordered.limit(limit))).map(toIndexRow);
    },
    async sessionIndexIn({ sinceMs, untilMs, includeSynthetic, limit }, signal) {
      signal?.throwIfAborted();
      let turns = db.selectFrom('turns').where('started_at', '>=', sinceMs).where('started_at', '<=', untilMs);
      if (!includeSynthetic) turns = turns.where('synthetic', '=', notSynthetic);
      const { rows, total } = await capped(
        store,
        turns.select(INDEX_COLUMNS).orderBy('started_at').orderBy('trace_id').limit(limit),
        turns.select((eb) => eb.fn.countAll<number>().as('n')),
        limit,
      );
      return { rows: rows.map(toIndexRow), total };
    },
    async usageByAgent({ sinceMs, untilMs }, signal) {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('token_usage')
        .select((eb) => {
          const sum = (column: 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cost_usd') =>
            eb.fn.coalesce(eb.fn.sum<number>(column), eb.lit(0));
          return [
            'agent_id as agentId',
            'provider',
            'model',
            eb.fn.countAll<number>().as('calls'),
            sum('input_tokens').as('inputTokens'),
            sum('output_tokens').as('outputTokens'),
            sum('cache_read_tokens').as('cacheReadTokens'),
            sum('cost_usd').as('costUsd'),
          ];
        })
        .where('ts', '>=', sinceMs)
        .where('ts', '<=', untilMs)
        .groupBy(['agent_id', 'provider', 'model'])
        .orderBy('agent_id')
        .orderBy('provider')
        .orderBy('model');
      return store.rows(query);
    },
    async healthSignalsIn({ sinceMs, untilMs, excludeKind, limit }, signal) {
      signal?.throwIfAborted();
      let signals = db.selectFrom('health_signals').where('ts', '>=', sinceMs).where('ts', '<=', untilMs);
      if (excludeKind !== undefined) signals = signals.where('kind', '<>', excludeKind);
      const { rows, total } = await capped(
        store,
        signals.select(SIGNAL_COLUMNS).orderBy('ts').orderBy('id').limit(limit),
        signals.select((eb) => eb.fn.countAll<number>().as('n')),
        limit,
      );
      return { rows: rows.map(toSignal), total };
    },
    async latestHealthSignal({ kind, atOrBeforeMs }, signal) {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('health_signals')
        .select(SIGNAL_COLUMNS)
        .where('kind', '=', kind)
        .where('ts', '<=', atOrBeforeMs)
        .orderBy('ts', 'desc')
        .orderBy('id', 'desc')
        .limit(1);
      return (await store.rows(query)).map(toSignal)[0];
    },
    async runsStartedIn({ sinceMs, untilMs, limit }, signal) {
      signal?.throwIfAborted();
      const runs = db.selectFrom('runs').where('started_at', '>=', sinceMs).where('started_at', '<=', untilMs);
      return capped(
        store,
        runs.select(RUN_COLUMNS).orderBy('started_at').orderBy('run_id').limit(limit),
        runs.select((eb) => eb.fn.countAll<number>().as('n')),
        limit,
      );
    },
  };
}
