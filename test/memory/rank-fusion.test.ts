// Reciprocal rank fusion of the memory lanes: scores, order, ties, and lanes that miss a hit.
import { describe, expect, it } from 'vitest';
import { fuseRankings, RRF_K } from '../../src/memory/index.js';

const lane = (...ids: string[]) => ids.map((id, index) => ({ id, rank: index + 1 }));

describe('fuseRankings', () => {
  it('ranks a hit both lanes found above hits only one lane found', () => {
    const fused = fuseRankings([lane('a', 'b', 'c'), lane('x', 'y', 'b')], 10);
    expect(fused.map((hit) => hit.id)).toEqual(['b', 'a', 'x', 'y', 'c']);
    expect(fused[0]?.ranks).toEqual([2, 3]);
    expect(fused[1]?.ranks).toEqual([1, undefined]);
  });

  it('scores 1 for first place in every lane and 1/(k+rank) per lane otherwise, normalised', () => {
    const [top] = fuseRankings([lane('a'), lane('a')], 1);
    expect(top?.score).toBeCloseTo(1, 12);
    const fused = fuseRankings([lane('a', 'b'), lane('c')], 3);
    const best = 2 / (RRF_K + 1);
    expect(fused.find((hit) => hit.id === 'b')?.score).toBeCloseTo(1 / (RRF_K + 2) / best, 12);
  });

  it('keeps first-appearance order between equal scores, so results are deterministic', () => {
    expect(fuseRankings([lane('a', 'b'), lane('b', 'a')], 2).map((hit) => hit.id)).toEqual(['a', 'b']);
    expect(fuseRankings([lane('p'), lane('q')], 2).map((hit) => hit.id)).toEqual(['p', 'q']);
  });

  it('cuts at the limit and answers nothing for no lanes or a zero limit', () => {
    expect(fuseRankings([lane('a', 'b', 'c')], 2).map((hit) => hit.id)).toEqual(['a', 'b']);
    expect(fuseRankings([], 5)).toEqual([]);
    expect(fuseRankings([lane('a')], 0)).toEqual([]);
    expect(fuseRankings([[], []], 5)).toEqual([]);
  });

  it('counts a lane naming an id twice at its better rank only', () => {
    const [hit] = fuseRankings(
      [
        [
          { id: 'a', rank: 3 },
          { id: 'a', rank: 1 },
        ],
      ],
      1,
    );
    expect(hit?.score).toBeCloseTo(1, 12);
  });

  it('returns the best of many candidates by score, earlier first among equals, for any limit', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 50; trial += 1) {
      // Each lane names a random subset of 30 ids once, in random order.
      const lanes = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
        Array.from({ length: 30 }, (_, index) => `e${index}`)
          .filter(() => random() < 0.6)
          .sort(() => random() - 0.5)
          .map((id, index) => ({ id, rank: index + 1 })),
      );
      const firstSeen: string[] = [];
      const scores = new Map<string, number>();
      for (const lane of lanes) {
        for (const { id, rank } of lane) {
          if (!firstSeen.includes(id)) firstSeen.push(id);
          scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank));
        }
      }
      const expected = [...firstSeen].sort(
        (left, right) =>
          (scores.get(right) ?? 0) - (scores.get(left) ?? 0) || firstSeen.indexOf(left) - firstSeen.indexOf(right),
      );
      const limit = 1 + Math.floor(random() * 12);
      const fused = fuseRankings(lanes, limit);
      expect(fused.map((hit) => hit.id)).toEqual(expected.slice(0, limit));
      fused.forEach((hit) =>
        expect(hit.score).toBeCloseTo((scores.get(hit.id) ?? 0) / (lanes.length / (RRF_K + 1)), 12),
      );
    }
  });

  it('with one lane keeps that lane order', () => {
    expect(fuseRankings([lane('c', 'a', 'b')], 3).map((hit) => hit.id)).toEqual(['c', 'a', 'b']);
  });
});
