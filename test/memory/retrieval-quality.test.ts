// Retrieval quality on a fixed corpus (220 entries, 50 queries) with the hashing embedder: recall@5 and MRR of the
// lexical lane alone, the vector lane alone and both fused, through the module's search over a real SQLite file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEmbedder, createMemorySearch, type MemoryLane, type MemorySearch } from '../../src/memory/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createHashingEmbedder } from '../../src/providers/index.js';
import type { StorePorts } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { DISTRACTORS, QUERIES, TARGETS, type QueryKind } from './retrieval-corpus.js';

const K = 5;
const NEVER = new AbortController().signal;

interface Figures {
  recallAt5: number;
  mrr: number;
}

describe('memory retrieval quality (hashing embedder)', () => {
  let dir: string;
  let store: StorePorts;
  let search: MemorySearch;
  const targetIds: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memory-quality-'));
    store = openSqliteStore({ path: join(dir, 'gateway.db') });
    const log = createLogger({ level: 'silent' });
    const embedder = createMemoryEmbedder({ builtin: createHashingEmbedder(), cache: store.memory, log });
    search = createMemorySearch({ port: store.memory, embedder });
    // Distractors and targets interleaved, so insertion order (the lexical lane's tie-break) gives no hint.
    const contents = [...DISTRACTORS.map((content) => ({ content, target: -1 })), ...TARGETS.map((content, target) => ({ content, target }))]
      .map((item, index) => ({ ...item, order: (index * 7919) % 220 }))
      .sort((a, b) => a.order - b.order);
    for (const [index, { content, target }] of contents.entries()) {
      const [vector] = await embedder.embed([content], NEVER);
      const entry = await store.memory.insert(
        { id: `m${index}`, tenantId: 'default', agentId: 'default', content, memoryType: 'fact', trustLevel: 'trusted', sourceSessionKey: null, createdAt: 1_000 + index, metadata: {}, derivedFrom: [] },
        vector,
      );
      if (target >= 0) targetIds[target] = entry.id;
    }
  });

  afterAll(async () => {
    await store?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  async function measure(lanes: readonly MemoryLane[], kind?: QueryKind): Promise<Figures> {
    const queries = QUERIES.filter((query) => kind === undefined || query.kind === kind);
    let found = 0;
    let reciprocal = 0;
    for (const { query, target } of queries) {
      const { hits } = await search({ query, filter: { tenantId: 'default', agentId: 'default' }, limit: 10, lanes });
      const rank = hits.findIndex((hit) => hit.entry.id === targetIds[target]) + 1;
      if (rank > 0 && rank <= K) found += 1;
      if (rank > 0) reciprocal += 1 / rank;
    }
    return { recallAt5: found / queries.length, mrr: reciprocal / queries.length };
  }

  it('fuses the lanes into a ranking at least as good as either alone', async () => {
    expect(DISTRACTORS.length + TARGETS.length).toBeGreaterThanOrEqual(200);
    expect(QUERIES).toHaveLength(50);
    const rows: Record<string, Figures & { kind: string }> = {};
    const raw: Record<string, Figures> = {};
    for (const kind of [undefined, 'lexical', 'paraphrase', 'mixed'] as const) {
      for (const [name, lanes] of [['lexical-only', ['lexical']], ['vector-only', ['vector']], ['fused', ['lexical', 'vector']]] as const) {
        const figures = await measure(lanes, kind);
        raw[`${name} ${kind ?? 'all'}`] = figures;
        rows[`${name} ${kind ?? 'all'}`] = { kind: kind ?? 'all', recallAt5: Number(figures.recallAt5.toFixed(3)), mrr: Number(figures.mrr.toFixed(3)) };
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
