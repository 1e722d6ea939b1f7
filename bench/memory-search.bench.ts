// Memory search (issue 12): the module's hybrid search p50/p99 at 10k and 100k entries with the hashing embedder,
// against the lexical lane alone (one FTS5 query) as the baseline; store throughput; and the recall hook's added
// latency per turn (the beforeModel work a turn waits for) against a hook registry with no hooks.
//
//   npx tsx bench/memory-search.bench.ts [--rounds 3] [--only "memory.search 100k"]
//
// Every entry is in ONE tenant and agent, and owned by the one token the searches and recalls read for (the worst case
// for a scoped search). The corpus is deterministic and shaped
// like real memories (bench/lib/topic-corpus.ts): entries written around one topic per hundred entries, Zipf-distributed
// words over a 6,000-word vocabulary plus common function words; queries ask about one topic in 2–6 words.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMemoryEmbedder, createMemorySearch, type MemorySearch } from '../src/memory/index.js';
import { createRecallHooks } from '../src/memory/recall-hook.js';
import { createRecallMarks } from '../src/memory/recall-marks.js';
import { validateConfig } from '../src/config/index.js';
import { createLogger } from '../src/obs/logger.js';
import { createHashingEmbedder } from '../src/providers/index.js';
import { createTokenDirectory } from '../src/server/index.js';
import type { StorePorts } from '../src/store/index.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { createHookRegistry } from '../src/turns/index.js';
import { isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import type { FigureRow } from './lib/figures.js';
import { percentile } from './lib/measure.js';
import { createTopicCorpus } from './lib/topic-corpus.js';

/** The targets: search p99 at 100k entries, and what recall adds to a turn. */
const MAX_SEARCH_P99_MS = 10;
const MAX_RECALL_MS = 2;
const SIZES = [10_000, 100_000] as const;
/** Searches measured per round at each size (after a quarter as many unmeasured): fewer where each costs more. */
const SEARCHES: Record<(typeof SIZES)[number], number> = { 10_000: 1_000, 100_000: 200 };
const LIMIT = 10;
/** The token owning every entry: a non-admin token's recall and search read its own entries (issue 30). */
const OWNER = 'bench';
const NEVER = new AbortController().signal;

/** Entries per topic of the corpus: a topic's memories are about this many of the store's. */
const ENTRIES_PER_TOPIC = 100;
const QUERIES = 500;

interface Fixture {
  store: StorePorts;
  search: MemorySearch;
  dir: string;
  storeMsPer1000: number;
}

async function fill(size: number): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-memory-'));
  const store = openSqliteStore({ path: join(dir, 'gateway.db') });
  const log = createLogger({ level: 'silent' });
  const embedder = createMemoryEmbedder({ builtin: createHashingEmbedder(), cache: store.memory, log });
  const corpus = createTopicCorpus({ seed: size, topics: size / ENTRIES_PER_TOPIC });
  const startedAt = performance.now();
  for (let index = 0; index < size; index += 1) {
    const content = corpus.entry();
    const [vector] = await embedder.embed([content], NEVER);
    await store.memory.insert(
      {
        id: `m${index}`,
        tenantId: 'default',
        agentId: 'default',
        content,
        memoryType: 'fact',
        trustLevel: 'trusted',
        sourceSessionKey: 'default:bench:chat',
        ownerId: OWNER,
        createdAt: index,
        metadata: {},
        derivedFrom: [],
      },
      vector,
    );
  }
  const storeMsPer1000 = ((performance.now() - startedAt) / size) * 1_000;
  return { store, search: createMemorySearch({ port: store.memory, embedder }), dir, storeMsPer1000 };
}

/**
 * Times each call, the event loop turning between calls (untimed) as it does between a gateway's requests: replies
 * from the store's threads (the lexical lane's reader) are only delivered when it turns.
 */
async function timeEach(
  count: number,
  queries: readonly string[],
  call: (query: string) => Promise<unknown>,
): Promise<number[]> {
  const times: number[] = [];
  const warmup = Math.ceil(count / 4);
  for (let index = 0; index < warmup + count; index += 1) {
    const query = queries[index % queries.length] ?? 'tea';
    const startedAt = performance.now();
    await call(query);
    if (index >= warmup) times.push(performance.now() - startedAt);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return times.sort((a, b) => a - b);
}

export async function run(options: BenchOptions): Promise<FigureRow[]> {
  const rows: FigureRow[] = [];
  const log = createLogger({ level: 'silent' });
  const filter = { tenantId: 'default', agentId: 'default', readableBy: { ownerId: OWNER, tenantIds: [] } };
  const grants = createTokenDirectory({
    configTokens: () => [{ id: OWNER, secret: 'bench-secret-0123456789abcdefghijklmnopq', scopes: ['rpc'] }],
    store: { list: async () => [] },
    now: Date.now,
  });
  for (const size of SIZES) {
    const label = `${size / 1_000}k`;
    if (!wantsSurface(options, `memory.search ${label}`) && !wantsSurface(options, `recall ${label}`)) continue;
    const fixture = await fill(size);
    const corpus = createTopicCorpus({ seed: size, topics: size / ENTRIES_PER_TOPIC });
    const queries = Array.from({ length: QUERIES }, () => corpus.query());
    options.log(
      `memory ${label}: stored ${size} entries at ${fixture.storeMsPer1000.toFixed(1)} ms per 1,000 (${Math.round(1_000_000 / fixture.storeMsPer1000)} entries/s)`,
    );
    const p50 = { baseline: [] as number[], gateway: [] as number[] };
    const p99 = { baseline: [] as number[], gateway: [] as number[] };
    const recall = { baseline: [] as number[], gateway: [] as number[] };
    const config = validateConfig({}, 'bench').memory;
    const marks = createRecallMarks({ port: fixture.store.memory, now: Date.now, log });
    const hooks = createHookRegistry(
      [
        {
          name: 'memory',
          hooks: createRecallHooks({
            search: fixture.search,
            port: fixture.store.memory,
            marks,
            recorder: { trajectory: () => undefined },
            config: () => config,
            grants,
            now: Date.now,
            log,
          }),
        },
      ],
      log,
    );
    const bare = createHookRegistry([], log);
    let turn = 0;
    const hookCall = (registry: typeof hooks) => async (query: string) => {
      turn += 1;
      await registry.beforeModel(
        { message: query, step: 1 },
        {
          agentId: 'default',
          sessionKey: 'default:bench:chat',
          keyParts: { tenantId: 'default', userId: 'bench', channelId: 'chat' },
          traceId: `t${turn}`,
          clientId: OWNER,
          ownerId: OWNER,
          signal: NEVER,
        },
      );
    };
    for (let round = 0; round < options.rounds; round += 1) {
      const searches = SEARCHES[size];
      const lexical = await timeEach(searches, queries, (query) =>
        fixture.store.memory.searchLexical(query, filter, LIMIT),
      );
      const hybrid = await timeEach(searches, queries, (query) => fixture.search({ query, filter, limit: LIMIT }));
      p50.baseline.push(percentile(lexical, 0.5));
      p50.gateway.push(percentile(hybrid, 0.5));
      p99.baseline.push(percentile(lexical, 0.99));
      p99.gateway.push(percentile(hybrid, 0.99));
      const none = await timeEach(searches, queries, hookCall(bare));
      const recalled = await timeEach(searches, queries, hookCall(hooks));
      recall.baseline.push(percentile(none, 0.5));
      recall.gateway.push(percentile(recalled, 0.5));
      options.log(
        `  #${round + 1} lexical p50/p99 ${percentile(lexical, 0.5).toFixed(2)}/${percentile(lexical, 0.99).toFixed(2)} ms, ` +
          `search p50/p99 ${percentile(hybrid, 0.5).toFixed(2)}/${percentile(hybrid, 0.99).toFixed(2)} ms, ` +
          `recall hook p50/p99 ${percentile(recalled, 0.5).toFixed(2)}/${percentile(recalled, 0.99).toFixed(2)} ms (no hooks p50 ${percentile(none, 0.5).toFixed(3)})`,
      );
    }
    rows.push({
      kind: 'figure',
      surface: `memory.search ${label} p50 (base: lexical lane alone)`,
      unit: 'ms',
      ...p50,
      maxGateway: MAX_SEARCH_P99_MS,
    });
    rows.push({
      kind: 'figure',
      surface: `memory.search ${label} p99 (base: lexical lane alone)`,
      unit: 'ms',
      ...p99,
      maxGateway: MAX_SEARCH_P99_MS,
    });
    rows.push({
      kind: 'figure',
      surface: `recall per turn ${label} p50 (base: no hooks)`,
      unit: 'ms',
      ...recall,
      maxGateway: MAX_RECALL_MS,
    });
    await marks.flush();
    await fixture.store.close();
    await rm(fixture.dir, { recursive: true, force: true });
  }
  return rows;
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
