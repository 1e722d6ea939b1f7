// Retrieval quality on a fixed corpus (220 entries, 50 queries) with the hashing embedder: recall@5 and MRR of the
// lexical lane alone, the vector lane alone and both fused, through the module's search over a real SQLite file; and
// the lexical lane's figures kept when thousands of entries make the queries' common words too common to match.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryEmbedder,
  createMemorySearch,
  type MemoryLane,
  type MemorySearch,
} from '../../src/memory/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createHashingEmbedder } from '../../src/providers/index.js';
import type { StorePorts } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { LEXICAL_MATCH_BUDGET } from '../../src/store/sqlite/memory-lexical.js';
import { DISTRACTORS, QUERIES, TARGETS, type QueryKind } from './retrieval-corpus.js';

const K = 5;
const NEVER = new AbortController().signal;

interface Figures {
  recallAt5: number;
  mrr: number;
}

/** Words that carry no topic; filler entries made of them make these words common enough to be left out of queries. */
const FUNCTION_WORDS =
  'the a of to and in is it that for on with as was at by this be are from or his her they we our you said has have will can not so all one'.split(
    ' ',
  );

/** Filler entries of function words only, more of them than the lexical lane's word budget. */
function fillers(count: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    Array.from(
      { length: 10 },
      (_unused, position) => FUNCTION_WORDS[(index * 7 + position * 13) % FUNCTION_WORDS.length],
    ).join(' '),
  );
}

interface QualityFixture {
  store: StorePorts;
  search: MemorySearch;
  targetIds: string[];
  dir: string;
}

async function openCorpus(extra: readonly string[]): Promise<QualityFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'memory-quality-'));
  const store = openSqliteStore({ path: join(dir, 'gateway.db') });
  const log = createLogger({ level: 'silent' });
  const embedder = createMemoryEmbedder({ builtin: createHashingEmbedder(), cache: store.memory, log });
  const targetIds: string[] = [];
  // Distractors and targets interleaved, so insertion order (the lexical lane's tie-break) gives no hint.
  const contents = [
    ...DISTRACTORS.map((content) => ({ content, target: -1 })),
    ...TARGETS.map((content, target) => ({ content, target })),
  ]
    .map((item, index) => ({ ...item, order: (index * 7919) % 220 }))
    .sort((a, b) => a.order - b.order);
  for (const [index, { content, target }] of [
    ...contents,
    ...extra.map((content) => ({ content, target: -1 })),
  ].entries()) {
    const [vector] = await embedder.embed([content], NEVER);
    const entry = await store.memory.insert(
      {
        id: `m${index}`,
        tenantId: 'default',
        agentId: 'default',
        content,
        memoryType: 'fact',
        trustLevel: 'trusted',
        sourceSessionKey: null,
        createdAt: 1_000 + index,
        metadata: {},
        derivedFrom: [],
      },
      vector,
    );
    if (target >= 0) targetIds[target] = entry.id;
  }
  return { store, search: createMemorySearch({ port: store.memory, embedder }), targetIds, dir };
}

async function measure(fixture: QualityFixture, lanes: readonly MemoryLane[], kind?: QueryKind): Promise<Figures> {
  const queries = QUERIES.filter((query) => kind === undefined || query.kind === kind);
  let found = 0;
  let reciprocal = 0;
  for (const { query, target } of queries) {
    const { hits } = await fixture.search({
      query,
      filter: { tenantId: 'default', agentId: 'default' },
      limit: 10,
      lanes,
    });
    const rank = hits.findIndex((hit) => hit.entry.id === fixture.targetIds[target]) + 1;
    if (rank > 0 && rank <= K) found += 1;
    if (rank > 0) reciprocal += 1 / rank;
  }
  return { recallAt5: found / queries.length, mrr: reciprocal / queries.length };
}

async function closeCorpus(fixture: QualityFixture | undefined): Promise<void> {
  if (fixture === undefined) return;
  await fixture.store.close();
  await rm(fixture.dir, { recursive: true, force: true });
}

describe('memory retrieval quality (hashing embedder)', () => {
  let fixture: QualityFixture;

  beforeAll(async () => {
    fixture = await openCorpus([]);
  });

  afterAll(() => closeCorpus(fixture));

  it('fuses the lanes into a ranking at least as good as either alone', async () => {
    expect(DISTRACTORS.length + TARGETS.length).toBeGreaterThanOrEqual(200);
    expect(QUERIES).toHaveLength(50);
    const rows: Record<string, Figures & { kind: string }> = {};
    const raw: Record<string, Figures> = {};
    for (const kind of [undefined, 'lexical', 'paraphrase', 'mixed'] as const) {
      for (const [name, lanes] of [
        ['lexical-only', ['lexical']],
        ['vector-only', ['vector']],
        ['fused', ['lexical', 'vector']],
      ] as const) {
        const figures = await measure(fixture, lanes, kind);
        raw[`${name} ${kind ?? 'all'}`] = figures;
        rows[`${name} ${kind ?? 'all'}`] = {
          kind: kind ?? 'all',
          recallAt5: Number(figures.recallAt5.toFixed(3)),
          mrr: Number(figures.mrr.toFixed(3)),
        };
      }
    }
    console.table(rows);
    const all = (name: string) => raw[`${name} all`] ?? { recallAt5: Number.NaN, mrr: Number.NaN };
    expect(all('fused').recallAt5).toBeGreaterThanOrEqual(all('lexical-only').recallAt5);
    expect(all('fused').recallAt5).toBeGreaterThanOrEqual(all('vector-only').recallAt5);
    expect(all('fused').mrr).toBeGreaterThanOrEqual(all('lexical-only').mrr);
    expect(all('fused').mrr).toBeGreaterThanOrEqual(all('vector-only').mrr);
  });
});

describe('memory retrieval quality when common words are left out of queries', () => {
  let plain: QualityFixture;
  let padded: QualityFixture;

  beforeAll(async () => {
    plain = await openCorpus([]);
    padded = await openCorpus(fillers(LEXICAL_MATCH_BUDGET + 500));
  }, 120_000);

  afterAll(async () => {
    await closeCorpus(plain);
    await closeCorpus(padded);
  });

  it('finds the same targets lexically with thousands of entries of common words beside them', async () => {
    const before = await measure(plain, ['lexical']);
    const after = await measure(padded, ['lexical']);
    console.table({ 'lexical 220 entries': before, [`lexical +${LEXICAL_MATCH_BUDGET + 500} fillers`]: after });
    // A target may drop out only when a function word was all it shared with its query (a match by luck).
    const rankOf = async (fixture: QualityFixture, query: string, target: number) =>
      (
        await fixture.search({
          query,
          filter: { tenantId: 'default', agentId: 'default' },
          limit: K,
          lanes: ['lexical'],
        })
      ).hits.findIndex((hit) => hit.entry.id === fixture.targetIds[target]);
    const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
    for (const { query, target } of QUERIES) {
      if ((await rankOf(plain, query, target)) === -1 || (await rankOf(padded, query, target)) !== -1) continue;
      const shared = [...wordsOf(query)].filter((word) => wordsOf(TARGETS[target] ?? '').has(word));
      expect(
        shared.every((word) => FUNCTION_WORDS.includes(word)),
        `${query} lost a target it shares ${shared.join(', ')} with`,
      ).toBe(true);
    }
    expect(after.mrr).toBeGreaterThanOrEqual(before.mrr - 0.02);
  });
});
