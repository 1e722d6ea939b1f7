// The closest sketches to a query's, in two passes: the Hamming distance over each row's first 256 bits ranks every
// row passing the filter, and the full 1,024-bit distance ranks only the best of those; no sort, only histogram cuts.
import { POPCOUNT_16, SKETCH_BITS, SKETCH_WORDS } from './memory-sketch.js';

/** Words of the first pass: 256 bits tell near from far well enough to drop most rows at a quarter of the work. */
export const COARSE_WORDS = 8;
export const FINE_WORDS = SKETCH_WORDS - COARSE_WORDS;
const COARSE_BITS = COARSE_WORDS * 32;
/**
 * The first pass keeps this many times the rows asked for. With 100k entries of the topic corpus in one scope, the
 * lane then finds 0.96 of the exact top 60 (0.975 when this is 16); bench/memory-store.bench.ts reports the share.
 */
const COARSE_KEEP_FACTOR = 8;
/** The first pass's mark for a row the filter leaves out: farther than any distance. */
const LEFT_OUT = 0xffff;

/**
 * One scope's rows as the index keeps them: row i's seq, its sketch split in two arrays (the first pass reads only
 * `coarse`, so it streams through a quarter of the memory), and its packed attribute codes.
 */
export interface SketchRows {
  count: number;
  seqs: Float64Array;
  /** Each row's first COARSE_WORDS sketch words, row after row. */
  coarse: Uint32Array;
  /** Each row's other FINE_WORDS sketch words, row after row. */
  fine: Uint32Array;
  attributes: Uint32Array;
}

/** Per row of every scope searched, its first-pass distance; kept between searches and grown when too small. */
let distances = new Uint16Array(0);

/**
 * Writes each row's distance over the first COARSE_WORDS words into `out` from `offset` (LEFT_OUT for a row the filter
 * leaves out) and counts the distances in `histogram`; returns the rows the filter kept. The query's words are locals.
 */
function coarsePass(rows: SketchRows, sketch: Uint32Array, mask: number, wanted: number, out: Uint16Array, offset: number, histogram: Uint32Array): number {
  const { count, coarse, attributes } = rows;
  const q0 = sketch[0] as number;
  const q1 = sketch[1] as number;
  const q2 = sketch[2] as number;
  const q3 = sketch[3] as number;
  const q4 = sketch[4] as number;
  const q5 = sketch[5] as number;
  const q6 = sketch[6] as number;
  const q7 = sketch[7] as number;
  const table = POPCOUNT_16;
  let kept = 0;
  for (let row = 0, base = 0; row < count; row += 1, base += COARSE_WORDS) {
    if (((attributes[row] as number) & mask) !== wanted) {
      out[offset + row] = LEFT_OUT;
      continue;
    }
    // Signed 32-bit XORs (no `>>> 0`): they stay small integers, where unsigned ones above 2^31 would be doubles.
    const x0 = q0 ^ (coarse[base] as number);
    const x1 = q1 ^ (coarse[base + 1] as number);
    const x2 = q2 ^ (coarse[base + 2] as number);
    const x3 = q3 ^ (coarse[base + 3] as number);
    const x4 = q4 ^ (coarse[base + 4] as number);
    const x5 = q5 ^ (coarse[base + 5] as number);
    const x6 = q6 ^ (coarse[base + 6] as number);
    const x7 = q7 ^ (coarse[base + 7] as number);
    const near =
      (table[x0 & 0xffff] as number) + (table[x0 >>> 16] as number) + (table[x1 & 0xffff] as number) + (table[x1 >>> 16] as number) +
      (table[x2 & 0xffff] as number) + (table[x2 >>> 16] as number) + (table[x3 & 0xffff] as number) + (table[x3 >>> 16] as number) +
      (table[x4 & 0xffff] as number) + (table[x4 >>> 16] as number) + (table[x5 & 0xffff] as number) + (table[x5 >>> 16] as number) +
      (table[x6 & 0xffff] as number) + (table[x6 >>> 16] as number) + (table[x7 & 0xffff] as number) + (table[x7 >>> 16] as number);
    out[offset + row] = near;
    histogram[near] = (histogram[near] as number) + 1;
    kept += 1;
  }
  return kept;
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

/** The rows the first pass kept: their place in `distances` and their full distance. Grown when too small. */
let picked = { at: new Uint32Array(0), distance: new Uint16Array(0) };

/**
 * The seqs of up to `count` rows whose attributes masked by `mask` equal `wanted`, closest to the sketch first-come
 * (in no particular order): the caller reranks them exactly.
 */
export function closestRows(scopes: readonly SketchRows[], sketch: Uint32Array, mask: number, wanted: number, count: number): number[] {
  const total = scopes.reduce((sum, scope) => sum + scope.count, 0);
  if (distances.length < total) distances = new Uint16Array(total);
  const coarseHistogram = new Uint32Array(COARSE_BITS + 1);
  let matching = 0;
  for (let scope = 0, offset = 0; scope < scopes.length; offset += (scopes[scope] as SketchRows).count, scope += 1) {
    matching += coarsePass(scopes[scope] as SketchRows, sketch, mask, wanted, distances, offset, coarseHistogram);
  }
  const keep = Math.min(matching, count * COARSE_KEEP_FACTOR);
  if (picked.at.length < keep) picked = { at: new Uint32Array(keep), distance: new Uint16Array(keep) };
  // Every kept row is measured in full only when there are more than `count` to choose from.
  const measured = keep > count;
  const fullHistogram = new Uint32Array(SKETCH_BITS + 1);
  let { cut, atCut } = cutOf(coarseHistogram, keep);
  let kept = 0;
  for (let scope = 0, offset = 0; scope < scopes.length && kept < keep; offset += (scopes[scope] as SketchRows).count, scope += 1) {
    const rows = scopes[scope] as SketchRows;
    for (let at = offset, end = offset + rows.count; at < end; at += 1) {
      // A row the filter left out is LEFT_OUT, past any cut.
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
    if (offset < rows.count) return rows.seqs[offset] as number;
    offset -= rows.count;
  }
  throw new RangeError(`row ${at} is past the scopes searched`);
}
