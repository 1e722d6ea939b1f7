// The closest sketches to a query's, in two passes: the Hamming distance over each row's first 256 bits ranks every
// row passing the filter (the arena's WebAssembly kernel), and the full 1,024-bit distance ranks only the best of
// those; no sort, only histogram cuts.
import type { ArenaBlock, SketchArena } from './memory-sketch-arena.js';
import { POPCOUNT_16, SKETCH_BITS, SKETCH_WORDS } from './memory-sketch.js';

/** Words of the first pass: 256 bits tell near from far well enough to drop most rows at a quarter of the work. */
export const COARSE_WORDS = 8;
export const FINE_WORDS = SKETCH_WORDS - COARSE_WORDS;
/**
 * The first pass keeps this many times the rows asked for. With 100k entries of the topic corpus in one scope, the
 * lane then finds 0.96 of the exact top 60 (0.975 when this is 16); bench/memory-store.bench.ts reports the share.
 */
const COARSE_KEEP_FACTOR = 8;

/**
 * One scope's rows as the index keeps them: the attribute words and first COARSE_WORDS sketch words of its rows in an
 * arena block (the first pass, in WebAssembly, streams through them), and per row its seq and other sketch words.
 */
export interface SketchRows {
  block: ArenaBlock;
  seqs: Float64Array;
  /** Each row's other FINE_WORDS sketch words, row after row. */
  fine: Uint32Array;
}

/** Hamming distance of the query to row `row` over the words after the first COARSE_WORDS. */
function finePart(rows: SketchRows, sketch: Uint32Array, row: number): number {
  const { fine } = rows;
  const table = POPCOUNT_16;
  let total = 0;
  for (let word = COARSE_WORDS, offset = row * FINE_WORDS; word < SKETCH_WORDS; word += 1, offset += 1) {
    const differing = (sketch[word] as number) ^ (fine[offset] as number);
    total += (table[differing & 0xffff] as number) + (table[differing >>> 16] as number);
  }
  return total;
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

/** The rows the first pass kept: their place in its distances and their full distance. Grown when too small. */
let picked = { at: new Uint32Array(0), distance: new Uint16Array(0) };

/**
 * The seqs of up to `count` rows whose attributes masked by `mask` equal `wanted`, closest to the sketch first-come
 * (in no particular order): the caller reranks them exactly.
 */
export function closestRows(arena: SketchArena, scopes: readonly SketchRows[], sketch: Uint32Array, mask: number, wanted: number, count: number): number[] {
  const { distances, histogram, kept: matching } = arena.coarsePass(scopes.map((scope) => scope.block), sketch, mask, wanted);
  const keep = Math.min(matching, count * COARSE_KEEP_FACTOR);
  if (picked.at.length < keep) picked = { at: new Uint32Array(keep), distance: new Uint16Array(keep) };
  // Every kept row is measured in full only when there are more than `count` to choose from.
  const measured = keep > count;
  const fullHistogram = new Uint32Array(SKETCH_BITS + 1);
  let { cut, atCut } = cutOf(histogram, keep);
  let kept = 0;
  for (let scope = 0, offset = 0; scope < scopes.length && kept < keep; offset += (scopes[scope] as SketchRows).block.count, scope += 1) {
    const rows = scopes[scope] as SketchRows;
    for (let at = offset, end = offset + rows.block.count; at < end; at += 1) {
      // A row the filter left out is 0xffff, past any cut.
      const near = distances[at] as number;
      if (near > cut) continue;
      if (near === cut) {
        if (atCut === 0) continue;
        atCut -= 1;
      }
      const far = measured ? near + finePart(rows, sketch, at - offset) : 0;
      picked.at[kept] = at;
      picked.distance[kept] = far;
      fullHistogram[far] = (fullHistogram[far] as number) + 1;
      kept += 1;
    }
  }
  ({ cut, atCut } = cutOf(fullHistogram, Math.min(count, kept)));
  const out: number[] = [];
  for (let index = 0; index < kept && out.length < count; index += 1) {
    const far = picked.distance[index] as number;
    if (far > cut) continue;
    if (far === cut) {
      if (atCut === 0) continue;
      atCut -= 1;
    }
    out.push(seqAt(scopes, picked.at[index] as number));
  }
  return out;
}

/** The seq of the row at place `at` of the scopes laid end to end. */
function seqAt(scopes: readonly SketchRows[], at: number): number {
  let offset = at;
  for (const rows of scopes) {
    if (offset < rows.block.count) return rows.seqs[offset] as number;
    offset -= rows.block.count;
  }
  throw new RangeError(`row ${at} is past the scopes searched`);
}
