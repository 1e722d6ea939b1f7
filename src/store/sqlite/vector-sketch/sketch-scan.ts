// The closest sketches to a query's, in two passes of the arena's WebAssembly kernel: the Hamming distance over each
// row's first 256 bits (enough to tell near from far at a quarter of the work) ranks every row passing the filter, and
// the full 1,024-bit distance ranks only the best of those; no sort, only histogram cuts. Where the arena keeps the
// vectors' codes, the kernel then ranks those closest by the cosine of their codes.
import type { ArenaBlock, BlockScan, ScannedRow, SketchArena } from './sketch-arena.js';
import { SKETCH_BITS } from './sketch.js';
import { bestByScore } from './vectors.js';

/**
 * The first pass keeps this many times the rows asked for. With 100k entries of the topic corpus in one scope, the
 * lane then finds 0.96 of the exact top 60 (0.975 when this is 16); bench/memory-store.bench.ts reports the share.
 */
const COARSE_KEEP_FACTOR = 8;

/** One scope's rows as the index keeps them: their sketches and attributes in an arena block, their seqs and ids here. */
export interface SketchRows {
  block: ArenaBlock;
  seqs: Float64Array;
  ids: string[];
}

/** The distance under which every row is taken, and how many rows at it are taken too. */
interface Cut {
  cut: number;
  atCut: number;
}

/** The cut that takes the `count` closest (count at most the rows counted in the histogram). */
function cutOf(histogram: Uint32Array, count: number): Cut {
  let cut = 0;
  let below = 0;
  while (below + (histogram[cut] as number) < count) {
    below += histogram[cut] as number;
    cut += 1;
  }
  return { cut, atCut: count - below };
}

/** The full distances of the rows the first pass kept. Grown when too small. */
let fullDistances = new Uint16Array(0);

/** The places (in the scan's rows laid end to end) of up to `count` rows closest to the sketch, in no order. */
function closestPlaces(scan: BlockScan, count: number): number[] {
  const keep = Math.min(scan.kept, count * COARSE_KEEP_FACTOR);
  const coarseCut = cutOf(scan.histogram, keep);
  const kept = scan.pick(coarseCut.cut, coarseCut.atCut, keep);
  const { places, distances } = scan;
  if (kept <= count) return Array.from(places.subarray(0, kept));
  // More than `count` to choose from: each is measured in full.
  const rest = scan.measure(kept);
  if (fullDistances.length < kept) fullDistances = new Uint16Array(kept);
  const histogram = new Uint32Array(SKETCH_BITS + 1);
  for (let index = 0; index < kept; index += 1) {
    const far = (distances[places[index] as number] as number) + (rest[index] as number);
    fullDistances[index] = far;
    histogram[far] = (histogram[far] as number) + 1;
  }
  let { cut, atCut } = cutOf(histogram, count);
  const out: number[] = [];
  for (let index = 0; index < kept && out.length < count; index += 1) {
    const far = fullDistances[index] as number;
    if (far > cut) continue;
    if (far === cut) {
      if (atCut === 0) continue;
      atCut -= 1;
    }
    out.push(places[index] as number);
  }
  return out;
}

/** The first pass over the scopes' blocks, with room for the second to measure COARSE_KEEP_FACTOR times `count` rows. */
function scanOf(
  arena: SketchArena,
  scopes: readonly SketchRows[],
  sketch: Uint32Array,
  mask: number,
  wanted: number,
  count: number,
): BlockScan {
  const blocks = scopes.map((scope) => scope.block);
  const rowsSearched = blocks.reduce((sum, block) => sum + block.count, 0);
  return arena.scan(blocks, sketch, mask, wanted, Math.min(rowsSearched, count * COARSE_KEEP_FACTOR));
}

/**
 * The seqs of up to `count` rows whose attributes masked by `mask` equal `wanted`, closest to the sketch first-come
 * (in no particular order): the caller reranks them exactly.
 */
export function closestRows(
  arena: SketchArena,
  scopes: readonly SketchRows[],
  sketch: Uint32Array,
  mask: number,
  wanted: number,
  count: number,
): number[] {
  const scan = scanOf(arena, scopes, sketch, mask, wanted, count);
  return closestPlaces(scan, count).map((at) => seqAt(scopes, scan, at));
}

/**
 * Of those `count` closest rows, the best `limit` by the cosine of their codes with the query's, best first (ties: the
 * older entry, its seq lower); a row whose code (or the query's) is all zeros has no direction and is left out.
 */
export function rankedRows(
  arena: SketchArena,
  scopes: readonly SketchRows[],
  query: { sketch: Uint32Array; vectorCode: Int8Array },
  mask: number,
  wanted: number,
  count: number,
  limit: number,
): { seq: number; id: string; score: number }[] {
  const scan = scanOf(arena, scopes, query.sketch, mask, wanted, count);
  const rows = closestPlaces(scan, count).map((at) => scan.locate(at));
  const scores = scan.codeCosines(query.vectorCode, rows);
  const seqs = rows.map(({ block, row }) => (scopes[block] as SketchRows).seqs[row] as number);
  return bestByScore(seqs, scores, limit).map((at) => {
    const { block, row } = rows[at] as ScannedRow;
    return {
      seq: seqs[at] as number,
      id: (scopes[block] as SketchRows).ids[row] as string,
      score: scores[at] as number,
    };
  });
}

/** The seq of the row at place `at` of the scopes laid end to end (as the scan laid their blocks). */
function seqAt(scopes: readonly SketchRows[], scan: BlockScan, at: number): number {
  const { block, row } = scan.locate(at);
  return (scopes[block] as SketchRows).seqs[row] as number;
}
