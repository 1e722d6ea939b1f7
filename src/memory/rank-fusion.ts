// Reciprocal rank fusion of the lexical and vector lanes (k = 60, as comis and Letta fuse them): pure, no I/O.
import { bestPlaces } from '../best-places.js';

/** RRF's damping constant: a hit at rank r in one lane adds 1 / (k + r). */
export const RRF_K = 60;

export interface LaneHit {
  id: string;
  /** 1-based rank within its lane. */
  rank: number;
}

export interface FusedHit {
  id: string;
  /** Sum over lanes of 1 / (k + rank), divided by the best possible sum (rank 1 in every lane): 0 to 1. */
  score: number;
  /** The hit's rank in each lane that returned it (by lane index); absent where a lane missed it. */
  ranks: (number | undefined)[];
}

/**
 * Fuses rankings best first. Ties (equal fused score) keep the order of first appearance, lane by lane, so
 * the result is deterministic. `lanes` that are empty add nothing; the normaliser counts every lane.
 */
export function fuseRankings(lanes: readonly (readonly LaneHit[])[], limit: number, k = RRF_K): FusedHit[] {
  if (lanes.length === 0 || limit <= 0) return [];
  const width = lanes.length;
  // Each id's place, in order of first appearance; its score, and its best rank in each lane at place * width + lane.
  const placeOf = new Map<string, number>();
  const ids: string[] = [];
  const scores: number[] = [];
  const ranks: (number | undefined)[] = [];
  lanes.forEach((lane, laneIndex) => {
    for (const { id, rank } of lane) {
      let place = placeOf.get(id);
      if (place === undefined) {
        place = ids.length;
        placeOf.set(id, place);
        ids.push(id);
        scores.push(0);
        for (let other = 0; other < width; other += 1) ranks.push(undefined);
      }
      // A lane naming an id twice counts its best rank only.
      const at = place * width + laneIndex;
      const previous = ranks[at];
      if (previous !== undefined && previous <= rank) continue;
      scores[place] = (scores[place] as number) + 1 / (k + rank) - (previous === undefined ? 0 : 1 / (k + previous));
      ranks[at] = rank;
    }
  });
  // Higher first; equal scores keep their order of first appearance.
  const best = bestPlaces(ids.length, limit, (left, right) => (scores[left] as number) > (scores[right] as number));
  const perfect = width / (k + 1);
  return best.map((place) => ({
    id: ids[place] as string,
    score: (scores[place] as number) / perfect,
    ranks: ranks.slice(place * width, (place + 1) * width),
  }));
}
