// The SQLite memory store (issue 12): insert cost, and searchLexical / searchVector p50 and p99 at 10k and 100k entries
// (256-dim hashing embedder): the lexical lane against a bare FTS5 table holding the same texts without scopes, the
// sketch vector lane against the exact lane (cosine over every vector of the scope) on the same file, and how much
// of the exact lane's top 60 the sketch lane finds.
//
//   npx tsx bench/memory-store.bench.ts [--rounds 3] [--only "memory"]
//
// The corpus is synthetic and deterministic: 12-word texts drawn Zipf-like from a 5,000-word vocabulary (so common
// words match much of the store, as they do in real text), spread over 10 tenants x 2 agents. Every search is scoped
// to one tenant and agent (a twentieth of the entries) and asks for 60 candidates, the over-fetch the fused search
// makes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import type { FigureRow } from './lib/figures.js';
import { percentile } from './lib/measure.js';
import { hashingVector } from '../src/providers/index.js';
import type { EmbeddingVector, MemoryFilter, NewMemoryEntry } from '../src/store/index.js';
import {
  createSqliteMemoryPort,
  openDatabase,
  toFtsAnyQuery,
  type SqliteDatabase,
  type SqliteMemoryPort,
} from '../src/store/sqlite/index.js';

const DIMENSIONS = 256;
const MODEL = `hashing-${DIMENSIONS}`;
const SIZES = [10_000, 100_000] as const;
const TENANTS = 10;
const AGENTS_PER_TENANT = 2;
const WORDS_PER_ENTRY = 12;
const VOCABULARY = 5_000;
/** Candidates per lane, as the fused search over-fetches. */
const LIMIT = 60;
/** Searches timed per lane, size and round (after as many untimed). */
const QUERIES_PER_ROUND = 300;
/** Entries per transaction while building the store. */
const BUILD_BATCH = 5_000;
/** Entries inserted one transaction each, for the per-call insert figure. */
const SINGLE_INSERTS = 1_000;
/** The target: memory.search p99 at most 10 ms at 100k entries; the same bound is shown for each lane. */
const MAX_SEARCH_MS = 10;
const MAX_INSERT_US = 500;
/** The sketch lane must find at least 9 in 10 of the exact lane's candidates. */
const MAX_MISSED_SHARE = 0.1;

/** mulberry32: a small deterministic PRNG, so every run searches the same corpus. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Word ranks Zipf-like: rank r is drawn about 1/r as often as the most common word. */
function zipfWord(next: () => number): string {
  const rank = Math.floor(Math.exp(next() * Math.log(VOCABULARY)));
  return `w${rank.toString(36)}`;
}

function words(next: () => number, count: number): string {
  return Array.from({ length: count }, () => zipfWord(next)).join(' ');
}

function embed(text: string): EmbeddingVector {
  return { model: MODEL, values: Float32Array.from(hashingVector(text, DIMENSIONS)) };
}

function entryAt(index: number, content: string): NewMemoryEntry {
  const scope = index % (TENANTS * AGENTS_PER_TENANT);
  return {
    id: `mem-${index}`,
    tenantId: `tenant-${Math.floor(scope / AGENTS_PER_TENANT)}`,
    agentId: `agent-${scope % AGENTS_PER_TENANT}`,
    content,
    memoryType: 'fact',
    trustLevel: 'trusted',
    sourceSessionKey: `session-${index % 1_000}`,
    createdAt: 1_700_000_000_000 + index,
    metadata: {},
    derivedFrom: [],
  };
}

/** The same texts in a table without scope columns: what FTS5 costs on its own. */
interface Bare {
  insert(seq: number, content: string): void;
  lexical(query: string): void;
}

function createBare(db: SqliteDatabase): Bare {
  db.exec('CREATE VIRTUAL TABLE bare_fts USING fts5 (content)');
  const insertText = db.prepare('INSERT INTO bare_fts (rowid, content) VALUES (?, ?)');
  const lexical = db.prepare(
    'SELECT rowid, bm25(bare_fts) AS rank FROM bare_fts WHERE bare_fts MATCH ? ORDER BY rank LIMIT ?',
  );
  return {
    insert: (seq, content) => insertText.run(seq, content),
    lexical: (query) => lexical.all(toFtsAnyQuery(query), LIMIT),
  };
}

interface Store {
  db: SqliteDatabase;
  memory: SqliteMemoryPort;
  bare: Bare;
  size: number;
  close(): Promise<void>;
}

async function openStore(): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-memory-bench-'));
  const db = openDatabase({ path: join(dir, 'gateway.db') });
  return {
    db,
    memory: createSqliteMemoryPort(db),
    bare: createBare(db),
    size: 0,
    async close() {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const corpusText = (index: number) => words(random(index + 1), WORDS_PER_ENTRY);

/** Grows the store to `size`, `BUILD_BATCH` entries per transaction; µs per entry for the port and for the bare tables. */
async function growTo(store: Store, size: number): Promise<{ portUs: number; bareUs: number }> {
  let portMs = 0;
  let bareMs = 0;
  const count = size - store.size;
  while (store.size < size) {
    const end = Math.min(size, store.size + BUILD_BATCH);
    const batch = Array.from({ length: end - store.size }, (_, offset) => {
      const index = store.size + offset;
      const content = corpusText(index);
      return { index, content, vector: embed(content) };
    });
    let started = performance.now();
    store.db.exec('BEGIN IMMEDIATE');
    for (const { index, content, vector } of batch) await store.memory.insert(entryAt(index, content), vector);
    store.db.exec('COMMIT');
    portMs += performance.now() - started;
    started = performance.now();
    store.db.exec('BEGIN IMMEDIATE');
    for (const { index, content } of batch) store.bare.insert(index + 1, content);
    store.db.exec('COMMIT');
    bareMs += performance.now() - started;
    store.size = end;
  }
  return { portUs: (portMs * 1_000) / count, bareUs: (bareMs * 1_000) / count };
}

/** Each timed call's duration in ms, sorted; as many untimed calls first. */
async function timeCalls(count: number, call: (index: number) => unknown): Promise<number[]> {
  for (let index = 0; index < count; index += 1) await call(index);
  const durations: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await call(index);
    durations.push(performance.now() - started);
  }
  return durations.sort((a, b) => a - b);
}

interface Percentiles {
  p50: number;
  p99: number;
}

const summary = (sorted: number[]): Percentiles => ({ p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) });

function queryAt(round: number, index: number): { text: string; filter: MemoryFilter } {
  const next = random(1_000_000 + round * 10_000 + index);
  const scope = Math.floor(next() * TENANTS * AGENTS_PER_TENANT);
  return {
    text: words(next, 4),
    filter: {
      tenantId: `tenant-${Math.floor(scope / AGENTS_PER_TENANT)}`,
      agentId: `agent-${scope % AGENTS_PER_TENANT}`,
    },
  };
}

interface SearchFigures {
  lexical: Percentiles;
  vector: Percentiles;
  bareLexical: Percentiles;
  exactVector: Percentiles;
  /** Share of the exact lane's top LIMIT that the vector lane returns, averaged over the queries. */
  recallOfExact: number;
}

async function recallOfExact(
  store: Store,
  exact: SqliteMemoryPort,
  vectors: readonly EmbeddingVector[],
  filters: readonly MemoryFilter[],
): Promise<number> {
  let sum = 0;
  let counted = 0;
  for (const [index, vector] of vectors.entries()) {
    const filter = filters[index] ?? {};
    const reference = await exact.searchVector(vector, filter, LIMIT);
    if (reference.length === 0) continue;
    const found = new Set((await store.memory.searchVector(vector, filter, LIMIT)).map((hit) => hit.id));
    sum += reference.filter((hit) => found.has(hit.id)).length / reference.length;
    counted += 1;
  }
  return counted === 0 ? 1 : sum / counted;
}

/**
 * `exact` is the exact lane on the same connection and tables, opened after the store was grown (a port reads the
 * registry of vector indexes when it opens): the vector lane's baseline and its reference ranking.
 */
async function measureSearches(store: Store, exact: SqliteMemoryPort, round: number): Promise<SearchFigures> {
  const queries = Array.from({ length: QUERIES_PER_ROUND }, (_, index) => queryAt(round, index));
  const vectors = queries.map((query) => embed(query.text));
  const pick = <T>(list: T[], index: number): T => {
    const item = list[index];
    if (item === undefined) throw new RangeError(`no item ${index}`);
    return item;
  };
  return {
    lexical: summary(
      await timeCalls(QUERIES_PER_ROUND, (index) =>
        store.memory.searchLexical(pick(queries, index).text, pick(queries, index).filter, LIMIT),
      ),
    ),
    vector: summary(
      await timeCalls(QUERIES_PER_ROUND, (index) =>
        store.memory.searchVector(pick(vectors, index), pick(queries, index).filter, LIMIT),
      ),
    ),
    bareLexical: summary(await timeCalls(QUERIES_PER_ROUND, (index) => store.bare.lexical(pick(queries, index).text))),
    exactVector: summary(
      await timeCalls(QUERIES_PER_ROUND, (index) =>
        exact.searchVector(pick(vectors, index), pick(queries, index).filter, LIMIT),
      ),
    ),
    recallOfExact: await recallOfExact(
      store,
      exact,
      vectors,
      queries.map((query) => query.filter),
    ),
  };
}

/** µs per insert when each is its own transaction (the memory_store path), after the store holds `store.size` entries. */
async function singleInsertUs(store: Store): Promise<number> {
  const first = store.size;
  const started = performance.now();
  for (let index = first; index < first + SINGLE_INSERTS; index += 1) {
    const content = corpusText(index);
    await store.memory.insert(entryAt(index, content), embed(content));
  }
  store.size += SINGLE_INSERTS;
  return ((performance.now() - started) * 1_000) / SINGLE_INSERTS;
}

export async function run(options: BenchOptions): Promise<FigureRow[]> {
  if (!wantsSurface(options, 'memory')) return [];
  const rows = new Map<string, FigureRow>();
  const add = (surface: string, unit: string, maxGateway: number, baseline: number, gateway: number) => {
    const row = rows.get(surface) ?? { kind: 'figure', surface, unit, baseline: [], gateway: [], maxGateway };
    row.baseline.push(baseline);
    row.gateway.push(gateway);
    rows.set(surface, row);
  };
  const store = await openStore();
  try {
    for (const size of SIZES) {
      const build = await growTo(store, size);
      options.log(
        `memory: ${size} entries built, ${build.portUs.toFixed(1)} us/entry (bare FTS5 ${build.bareUs.toFixed(1)} us/entry)`,
      );
      add(`memory: insert, batched, to ${size / 1_000}k (us/entry)`, 'us', MAX_INSERT_US, build.bareUs, build.portUs);
      const exact = createSqliteMemoryPort(store.db, { exactVectorSearch: true });
      for (let round = 1; round <= options.rounds; round += 1) {
        const figures = await measureSearches(store, exact, round);
        options.log(
          `  #${round} lexical p50/p99 ${figures.lexical.p50.toFixed(2)}/${figures.lexical.p99.toFixed(2)} ms (bare ${figures.bareLexical.p50.toFixed(2)}/${figures.bareLexical.p99.toFixed(2)}), ` +
            `vector p50/p99 ${figures.vector.p50.toFixed(2)}/${figures.vector.p99.toFixed(2)} ms (exact ${figures.exactVector.p50.toFixed(2)}/${figures.exactVector.p99.toFixed(2)}), ` +
            `recall of exact top ${LIMIT} ${figures.recallOfExact.toFixed(3)}`,
        );
        const at = `${size / 1_000}k`;
        add(`memory: searchLexical p50 at ${at}`, 'ms', MAX_SEARCH_MS, figures.bareLexical.p50, figures.lexical.p50);
        add(`memory: searchLexical p99 at ${at}`, 'ms', MAX_SEARCH_MS, figures.bareLexical.p99, figures.lexical.p99);
        add(
          `memory: searchVector p50 at ${at} (base: exact lane)`,
          'ms',
          MAX_SEARCH_MS,
          figures.exactVector.p50,
          figures.vector.p50,
        );
        add(
          `memory: searchVector p99 at ${at} (base: exact lane)`,
          'ms',
          MAX_SEARCH_MS,
          figures.exactVector.p99,
          figures.vector.p99,
        );
        add(
          `memory: searchVector share of the exact top ${LIMIT} missed at ${at}`,
          'share',
          MAX_MISSED_SHARE,
          0,
          1 - figures.recallOfExact,
        );
      }
    }
    const single = await singleInsertUs(store);
    options.log(
      `memory: ${single.toFixed(1)} us per insert in its own transaction at ${store.size - SINGLE_INSERTS} entries`,
    );
    add('memory: insert, one transaction each, at 100k (us/entry)', 'us', MAX_INSERT_US, Number.NaN, single);
  } finally {
    await store.close();
  }
  return [...rows.values()].filter((row) => wantsSurface(options, row.surface));
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
