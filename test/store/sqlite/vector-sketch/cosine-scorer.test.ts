// The kernel's cosine scores agree with a plain f64 cosine for any length, all-zero vectors score NaN, and the scorer
// grows its memory for larger batches.
import { describe, expect, it } from 'vitest';
import { createCosineScorer } from '../../../../src/store/sqlite/vector-sketch/cosine-scorer.js';
import { cosineSimilarity } from '../../../../src/store/sqlite/vector-sketch/vectors.js';
import { seededRandom } from '../../../../bench/lib/topic-corpus.js';

const next = seededRandom(11);
const randomVector = (dimensions: number) => Float32Array.from({ length: dimensions }, () => next() * 2 - 1);

function laidEndToEnd(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors.reduce((sum, vector) => sum + vector.length, 0));
  let at = 0;
  for (const vector of vectors) {
    out.set(vector, at);
    at += vector.length;
  }
  return out;
}

describe('cosine scorer', () => {
  it.each([1, 3, 4, 7, 256, 1_537])('matches a plain cosine for %i dimensions', (dimensions) => {
    const score = createCosineScorer();
    const query = randomVector(dimensions);
    const vectors = Array.from({ length: 40 }, () => randomVector(dimensions));
    const scores = Array.from(score(query, laidEndToEnd(vectors)));
    expect(scores).toHaveLength(vectors.length);
    scores.forEach((value, index) =>
      expect(value).toBeCloseTo(cosineSimilarity(query, vectors[index] as Float32Array), 12),
    );
  });

  it('scores an all-zero vector, or every vector for an all-zero query, as NaN', () => {
    const score = createCosineScorer();
    const query = Float32Array.from([0.5, -1, 2]);
    const scores = Array.from(
      score(query, laidEndToEnd([Float32Array.from([1, 0, 0]), new Float32Array(3), Float32Array.from([0.5, -1, 2])])),
    );
    expect(scores[0]).toBeCloseTo(0.5 / Math.sqrt(5.25), 12);
    expect(scores[1]).toBeNaN();
    expect(scores[2]).toBeCloseTo(1, 12);
    expect(Array.from(score(new Float32Array(3), laidEndToEnd([query])))).toEqual([Number.NaN]);
  });

  it('grows for a batch larger than its memory, and scores a later small batch alike', () => {
    const score = createCosineScorer();
    const query = randomVector(1_024);
    const vectors = Array.from({ length: 300 }, () => randomVector(1_024));
    const large = Array.from(score(query, laidEndToEnd(vectors)));
    expect(large[299]).toBeCloseTo(cosineSimilarity(query, vectors[299] as Float32Array), 12);
    expect(Array.from(score(query, laidEndToEnd(vectors.slice(0, 2))))).toEqual(large.slice(0, 2));
  });
});
