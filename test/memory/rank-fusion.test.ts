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
    const [hit] = fuseRankings([[{ id: 'a', rank: 3 }, { id: 'a', rank: 1 }]], 1);
    expect(hit?.score).toBeCloseTo(1, 12);
  });

  it('with one lane keeps that lane order', () => {
    expect(fuseRankings([lane('c', 'a', 'b')], 3).map((hit) => hit.id)).toEqual(['c', 'a', 'b']);
  });
});
