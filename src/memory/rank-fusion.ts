// Reciprocal rank fusion of the lexical and vector lanes (k = 60, as comis and Letta fuse them): pure, no I/O.

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
  const fused = new Map<string, FusedHit & { order: number }>();
  lanes.forEach((lane, laneIndex) => {
    for (const { id, rank } of lane) {
      let hit = fused.get(id);
      if (hit === undefined) {
        hit = { id, score: 0, ranks: new Array<number | undefined>(lanes.length).fill(undefined), order: fused.size };
        fused.set(id, hit);
      }
      // A lane naming an id twice counts its best rank only.
      const previous = hit.ranks[laneIndex];
      if (previous !== undefined && previous <= rank) continue;
      hit.score += 1 / (k + rank) - (previous === undefined ? 0 : 1 / (k + previous));
      hit.ranks[laneIndex] = rank;
    }
  });
  const best = lanes.length / (k + 1);
  // The comparator answers with small integers: a difference of scores is a fresh heap number per comparison.
  return [...fused.values()]
    .sort((a, b) => (b.score > a.score ? 1 : b.score < a.score ? -1 : a.order - b.order))
    .slice(0, limit)
    .map(({ id, score, ranks }) => ({ id, score: score / best, ranks }));
}
