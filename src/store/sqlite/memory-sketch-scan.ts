// The closest sketches to a query's, in two passes: the Hamming distance over each row's first 256 bits ranks every
// row passing the filter, and the full 1,024-bit distance ranks only the best of those; no sort, only histogram cuts.
import { POPCOUNT_16, SKETCH_BITS, SKETCH_WORDS } from './memory-sketch.js';

/** One scope's rows as the index keeps them: row i's seq, its sketch words, its packed attribute codes. */
export interface SketchRows {
  count: number;
  seqs: Float64Array;
  words: Uint32Array;
  attributes: Uint32Array;
}

/** Words of the first pass: 256 bits tell near from far well enough to drop most rows at a quarter of the work. */
const COARSE_WORDS = 8;
const COARSE_BITS = COARSE_WORDS * 32;
/**
 * The first pass keeps this many times the rows asked for. With 100k entries of the topic corpus in one scope, the
 * lane then finds 0.96 of the exact top 60 (0.975 when this is 16); bench/memory-store.bench.ts reports the share.
 */
const COARSE_KEEP_FACTOR = 8;

interface Scratch {
  distances: Uint16Array;
  scopeOf: Uint32Array;
  rowOf: Uint32Array;
}

let scratch: Scratch = { distances: new Uint16Array(0), scopeOf: new Uint32Array(0), rowOf: new Uint32Array(0) };

function scratchFor(rows: number): Scratch {
  if (scratch.distances.length < rows) scratch = { distances: new Uint16Array(rows), scopeOf: new Uint32Array(rows), rowOf: new Uint32Array(rows) };
  return scratch;
}

/** Hamming distance of the query to row `row` over words [from, to). */
function distance(sketch: Uint32Array, words: Uint32Array, row: number, from: number, to: number): number {
  let total = 0;
  for (let word = from, offset = row * SKETCH_WORDS + from; word < to; word += 1, offset += 1) {
    // Signed 32-bit XOR (no `>>> 0`): it stays a small integer, where an unsigned one above 2^31 would be a double.
    const differing = (sketch[word] as number) ^ (words[offset] as number);
    total += (POPCOUNT_16[differing & 0xffff] as number) + (POPCOUNT_16[differing >>> 16] as number);
  }
  return total;
}

/** The smallest distance `cut` such that the rows below it plus some at it make `count`; and how many at it to take. */
function cutOf(histogram: Uint32Array, count: number): { cut: number; atCut: number } {
  let cut = 0;
  let below = 0;
  while (below + (histogram[cut] as number) < count) {
    below += histogram[cut] as number;
    cut += 1;
  }
  return { cut, atCut: count - below };
}

/** Compacts the scratch to the `count` rows of smallest distance among the first `found`, keeping their order. */
function keepClosest({ distances, scopeOf, rowOf }: Scratch, found: number, histogram: Uint32Array, count: number): number {
  let { cut, atCut } = cutOf(histogram, count);
  let kept = 0;
  for (let index = 0; index < found && kept < count; index += 1) {
    const at = distances[index] as number;
    if (at > cut) continue;
    if (at === cut) {
      if (atCut === 0) continue;
      atCut -= 1;
    }
    distances[kept] = at;
    scopeOf[kept] = scopeOf[index] as number;
    rowOf[kept] = rowOf[index] as number;
    kept += 1;
  }
  return kept;
}

/**
 * The seqs of up to `count` rows whose attributes masked by `mask` equal `wanted`, closest to the sketch first-come
 * (in no particular order): the caller reranks them exactly.
 */
export function closestRows(scopes: readonly SketchRows[], sketch: Uint32Array, mask: number, wanted: number, count: number): number[] {
  const total = scopes.reduce((sum, scope) => sum + scope.count, 0);
  const rows = scratchFor(total);
  const { distances, scopeOf, rowOf } = rows;
  const coarse = new Uint32Array(COARSE_BITS + 1);
  let found = 0;
  // The first pass touches every row: its eight words are written out, with the query's in locals.
  const [q0 = 0, q1 = 0, q2 = 0, q3 = 0, q4 = 0, q5 = 0, q6 = 0, q7 = 0] = sketch;
  for (let scope = 0; scope < scopes.length; scope += 1) {
    const { count: scopeRows, words, attributes } = scopes[scope] as SketchRows;
    for (let row = 0, base = 0; row < scopeRows; row += 1, base += SKETCH_WORDS) {
      if (((attributes[row] as number) & mask) !== wanted) continue;
      const x0 = q0 ^ (words[base] as number);
      const x1 = q1 ^ (words[base + 1] as number);
      const x2 = q2 ^ (words[base + 2] as number);
      const x3 = q3 ^ (words[base + 3] as number);
      const x4 = q4 ^ (words[base + 4] as number);
      const x5 = q5 ^ (words[base + 5] as number);
      const x6 = q6 ^ (words[base + 6] as number);
      const x7 = q7 ^ (words[base + 7] as number);
      const near =
        (POPCOUNT_16[x0 & 0xffff] as number) + (POPCOUNT_16[x0 >>> 16] as number) + (POPCOUNT_16[x1 & 0xffff] as number) + (POPCOUNT_16[x1 >>> 16] as number) +
        (POPCOUNT_16[x2 & 0xffff] as number) + (POPCOUNT_16[x2 >>> 16] as number) + (POPCOUNT_16[x3 & 0xffff] as number) + (POPCOUNT_16[x3 >>> 16] as number) +
        (POPCOUNT_16[x4 & 0xffff] as number) + (POPCOUNT_16[x4 >>> 16] as number) + (POPCOUNT_16[x5 & 0xffff] as number) + (POPCOUNT_16[x5 >>> 16] as number) +
        (POPCOUNT_16[x6 & 0xffff] as number) + (POPCOUNT_16[x6 >>> 16] as number) + (POPCOUNT_16[x7 & 0xffff] as number) + (POPCOUNT_16[x7 >>> 16] as number);
      distances[found] = near;
      scopeOf[found] = scope;
      rowOf[found] = row;
      coarse[near] = (coarse[near] as number) + 1;
      found += 1;
    }
  }
  if (found > count * COARSE_KEEP_FACTOR) found = keepClosest(rows, found, coarse, count * COARSE_KEEP_FACTOR);
  if (found > count) {
    const full = new Uint32Array(SKETCH_BITS + 1);
    for (let index = 0; index < found; index += 1) {
      const scope = scopes[scopeOf[index] as number] as SketchRows;
      const far = (distances[index] as number) + distance(sketch, scope.words, rowOf[index] as number, COARSE_WORDS, SKETCH_WORDS);
      distances[index] = far;
      full[far] = (full[far] as number) + 1;
    }
    found = keepClosest(rows, found, full, count);
  }
  const out = new Array<number>(found);
  for (let index = 0; index < found; index += 1) out[index] = (scopes[scopeOf[index] as number] as SketchRows).seqs[rowOf[index] as number] as number;
  return out;
}
