// The few best of many candidates, without sorting them all: memory's rank fusion and the vector lane's rerank.

/**
 * Of the places 0 to count - 1 that `isCandidate` accepts, the `limit` best by `isBetter` (a strict order), best first.
 * A place no better than one kept stays after it, so equal places keep their order. Each is inserted into the short
 * list kept, where sorting every candidate would order the many never returned.
 */
export function bestPlaces(
  count: number,
  limit: number,
  isBetter: (left: number, right: number) => boolean,
  isCandidate: (place: number) => boolean = () => true,
): number[] {
  const best: number[] = [];
  if (limit <= 0) return best;
  for (let place = 0; place < count; place += 1) {
    if (!isCandidate(place)) continue;
    if (best.length === limit && !isBetter(place, best[limit - 1] as number)) continue;
    let slot = best.length === limit ? limit - 1 : best.length;
    while (slot > 0 && isBetter(place, best[slot - 1] as number)) {
      best[slot] = best[slot - 1] as number;
      slot -= 1;
    }
    best[slot] = place;
  }
  return best;
}
