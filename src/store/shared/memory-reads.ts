// The MemoryPort's reads that rank nothing, written once for both backends' hand-written memory SQL (branching on the
// dialect where it differs): entries by id, the admin browse, the stats, whether a scope holds entries, the entries
// still to embed and the agents with entries. Each backend runs the statements on its own connection.
import type { MemoryEntry, MemoryPort, MemoryScope, MemoryStats } from '../index.js';
import {
  inIdOrder,
  LINKS_ORDER,
  LINKS_SELECT,
  MEMORY_COLUMNS,
  observationSeqs,
  toEntries,
  toMemoryStats,
  type MemoryRow,
  type TypeCountRow,
} from './memory-rows.js';
import { buildWhere, memoryFilterConditions, Params, type Condition } from './sql-where.js';
import type { Dialect } from './store-db.js';

/** Runs one statement on the backend's connection (SQLite prepares each SQL text once) and resolves with its rows. */
export interface SqlRunner {
  readonly dialect: Dialect;
  all<R>(sql: string, values: readonly unknown[]): Promise<R[]>;
}

/** Lists are bound in chunks of this many (SQLite's own limit on bound parameters is far higher). */
const MAX_BOUND_IDS = 500;

export function chunks<T>(items: readonly T[], size = MAX_BOUND_IDS): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** The model of a stored vector: in its index's row on SQLite, beside the vector on PostgreSQL. */
const VECTOR_MODEL = {
  sqlite: { join: 'JOIN memory_vector_indexes i ON i.id = v.index_id', model: 'i.model' },
  postgres: { join: '', model: 'v.model' },
} as const;

const POSTGRES_RELATIONS = ['memory_entries', 'memory_links', 'memory_vectors', 'memory_embedding_cache'];

type MemoryReads = Pick<
  MemoryPort,
  'get' | 'getMany' | 'browse' | 'stats' | 'hasEntries' | 'withoutVector' | 'agentsWithEntries'
>;

export function createMemoryReads(runner: SqlRunner): MemoryReads {
  const { dialect } = runner;
  const vectorModel = VECTOR_MODEL[dialect];
  /** The rows of `SELECT … FROM memory_entries e WHERE <conditions> <tail>`, the tail's values bound after the WHERE's. */
  const select = <R>(columns: string, conditions: readonly Condition[], tail = (_params: Params) => '') => {
    const params = new Params(dialect);
    const where = buildWhere(params, conditions);
    return runner.all<R>(`SELECT ${columns} FROM memory_entries e ${where} ${tail(params)}`, params.values);
  };

  /** The rows as entries, each observation's source ids read (in the order given) a chunk at a time. */
  async function readEntries(rows: readonly MemoryRow[]): Promise<MemoryEntry[]> {
    const links: { observation: number; source: string }[] = [];
    for (const chunk of chunks(observationSeqs(rows))) {
      const params = new Params(dialect);
      const where = params.anyOf('l.observation_seq', chunk, 'bigint');
      links.push(
        ...(await runner.all<(typeof links)[number]>(`${LINKS_SELECT} WHERE ${where} ${LINKS_ORDER}`, params.values)),
      );
    }
    return toEntries(rows, links);
  }

  const reads: MemoryReads = {
    get: async (id, scope) => (await reads.getMany([id], scope))[0],
    /**
     * On SQLite the filter's columns are written `+e.column`, which it reads as "use no index here", so it looks the
     * named rows up rather than walking the scope's index (as long as the scope).
     */
    async getMany(ids: readonly string[], scope: MemoryScope): Promise<MemoryEntry[]> {
      const rows: MemoryRow[] = [];
      for (const chunk of chunks([...new Set(ids)])) {
        const key: Condition = (params) => params.anyOf('e.id', chunk);
        const filter = memoryFilterConditions(scope, dialect === 'sqlite' ? '+e.' : 'e.');
        rows.push(...(await select<MemoryRow>(MEMORY_COLUMNS, [key, ...filter])));
      }
      return inIdOrder(ids, await readEntries(rows));
    },
    async browse(filter, { offset, limit }) {
      const conditions = memoryFilterConditions(filter);
      const [count] = await select<{ n: number }>('COUNT(*) AS n', conditions);
      const page = (params: Params) =>
        `ORDER BY e.created_at DESC, e.seq DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`;
      const rows = await select<MemoryRow>(MEMORY_COLUMNS, conditions, page);
      return { entries: await readEntries(rows), total: Number(count?.n ?? 0) };
    },
    async stats(scope: MemoryScope): Promise<MemoryStats> {
      const conditions = memoryFilterConditions(scope);
      const byType = await select<TypeCountRow>(
        `memory_type, COUNT(*) AS entries, SUM(CASE WHEN trust_level = 'untrusted' THEN 1 ELSE 0 END) AS untrusted,
         SUM(CASE WHEN status = 'demoted' THEN 1 ELSE 0 END) AS demoted`,
        conditions,
        () => 'GROUP BY memory_type',
      );
      const params = new Params(dialect);
      const where = buildWhere(params, conditions);
      const byModel = await runner.all<{ model: string; vectors: number }>(
        `SELECT ${vectorModel.model} AS model, COUNT(*) AS vectors FROM memory_vectors v
         JOIN memory_entries e ON e.seq = v.entry_seq ${vectorModel.join} ${where} GROUP BY ${vectorModel.model}`,
        params.values,
      );
      const [size] = await (dialect === 'sqlite'
        ? runner.all<{ bytes: number }>(
            'SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()',
            [],
          )
        : runner.all<{ bytes: number }>(
            'SELECT SUM(pg_total_relation_size(name::regclass)) AS bytes FROM unnest($1::text[]) AS name',
            [POSTGRES_RELATIONS],
          ));
      return toMemoryStats(byType, byModel, Number(size?.bytes ?? 0));
    },
    /** One indexed probe (memory_entries_by_scope) rather than a count. */
    async hasEntries(scope: MemoryScope): Promise<boolean> {
      const params = new Params(dialect);
      const where = buildWhere(params, memoryFilterConditions(scope));
      const [row] = await runner.all<{ found: number | boolean }>(
        `SELECT EXISTS (SELECT 1 FROM memory_entries e ${where}) AS found`,
        params.values,
      );
      return row?.found === true || row?.found === 1;
    },
    withoutVector: (model: string, limit: number) =>
      select<Pick<MemoryEntry, 'id' | 'content'>>(
        'e.id, e.content',
        [
          (params) =>
            `NOT EXISTS (SELECT 1 FROM memory_vectors v ${vectorModel.join} WHERE v.entry_seq = e.seq AND ${vectorModel.model} = ${params.add(model)})`,
        ],
        (params) => `ORDER BY e.created_at, e.seq LIMIT ${params.add(limit)}`,
      ),
    async agentsWithEntries(): Promise<string[]> {
      const rows = await runner.all<{ agent_id: string }>(
        'SELECT DISTINCT agent_id FROM memory_entries ORDER BY agent_id',
        [],
      );
      return rows.map((row) => row.agent_id);
    },
  };
  return reads;
}
