// The SQLite vector lane's two reranks: by the cosine of in-memory 8-bit codes for vectors of up to 512 dimensions
// (each score within 0.005 of the exact cosine), and by exact cosine over the stored vectors for longer ones; and the
// pick of the best scores both use.
import { describe, expect, it } from 'vitest';
import { CODED_MAX_DIMENSIONS } from '../../../../src/store/sqlite/vector-sketch/vector-code.js';
import { bestByScore, cosineSimilarity } from '../../../../src/store/sqlite/vector-sketch/vectors.js';
import { seededRandom } from '../../../../bench/lib/topic-corpus.js';
import { memoryEntry } from '../../memory.cases.js';
import { useTemporaryMemoryPorts } from '../temporary-database.js';

const scope = { tenantId: 'tenant-a', agentId: 'agent-1' };

describe('bestByScore', () => {
  it('gives the positions of the best scores, best first, the lower seq first among equal scores, never a NaN', () => {
    const next = seededRandom(11);
    for (let trial = 0; trial < 40; trial += 1) {
      const count = Math.floor(next() * 300);
      const seqs = Array.from({ length: count }, () => Math.floor(next() * 1_000));
      // Scores from a few values, so many are equal; some not numbers.
      const scores = Float64Array.from({ length: count }, () =>
        next() < 0.1 ? Number.NaN : Math.floor(next() * 8) / 8,
      );
      const limit = Math.floor(next() * 80);
      const expected = seqs
        .map((seq, at) => ({ seq, at, score: scores[at] as number }))
        .filter(({ score }) => !Number.isNaN(score))
        .sort((left, right) => right.score - left.score || left.seq - right.seq)
        .slice(0, limit);
      const best = bestByScore(seqs, scores, limit);
      expect(best.map((at) => [seqs[at], scores[at]])).toEqual(expected.map(({ seq, score }) => [seq, score]));
    }
  });
});

describe('sqlite vector lane rerank', () => {
  const databases = useTemporaryMemoryPorts();

  async function ranked(dimensions: number) {
    const { port } = await databases.open();
    const next = seededRandom(dimensions);
    const randomVector = () => Float32Array.from({ length: dimensions }, () => next() * 2 - 1);
    const stored = new Map<string, Float32Array>();
    for (let index = 0; index < 300; index += 1) {
      const values = randomVector();
      stored.set(`e${index}`, values);
      await port.insert(memoryEntry(`e${index}`, scope), { model: 'm', values });
    }
    const query = randomVector();
    const exact = [...stored]
      .map(([id, values]) => ({ id, score: cosineSimilarity(query, values) }))
      .sort((left, right) => right.score - left.score);
    const hits = await port.searchVector({ model: 'm', values: query }, scope, 10);
    return { hits, exact, stored, query };
  }

  it.each([CODED_MAX_DIMENSIONS + 1, 1_024])('ranks %i-dimensional vectors by exact cosine', async (dimensions) => {
    const { hits, exact } = await ranked(dimensions);
    expect(hits.map((hit) => hit.id)).toEqual(exact.slice(0, 10).map((hit) => hit.id));
    hits.forEach((hit, index) => expect(hit.score).toBeCloseTo(exact[index]?.score ?? Number.NaN, 12));
  });

  it.each([3, 256, CODED_MAX_DIMENSIONS])(
    'ranks %i-dimensional vectors by their codes, each score within 0.005 of the exact cosine',
    async (dimensions) => {
      const { hits, exact, stored, query } = await ranked(dimensions);
      expect(hits).toHaveLength(10);
      for (const hit of hits)
        expect(Math.abs(hit.score - cosineSimilarity(query, stored.get(hit.id) as Float32Array))).toBeLessThan(0.005);
      // Near ties may trade places; the exact top 10 is found all the same.
      expect(hits.filter((hit) => exact.slice(0, 12).some((best) => best.id === hit.id)).length).toBeGreaterThanOrEqual(
        9,
      );
    },
  );
});
