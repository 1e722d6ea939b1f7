// The sketch arena: the WebAssembly passes agree with a plain count of differing bits, the first marks the rows the
// filter leaves out and the pick takes the rows a cut keeps; blocks keep their rows through growth, releases and
// packing; and the kernel is its .wat compiled.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compileKernel, generatedModule } from '../../../../scripts/build-kernel.js';
import {
  createSketchArena,
  FINE_BYTES,
  fineOffsetOf,
  RECORD_WORDS,
  type ArenaBlock,
  type SketchArena,
} from '../../../../src/store/sqlite/vector-sketch/sketch-arena.js';
import { seededRandom } from '../../../../bench/lib/topic-corpus.js';

const next = seededRandom(7);
const randomSketch = () => Uint32Array.from({ length: 32 }, () => Math.floor(next() * 2 ** 32));

/** Differing bits of words [from, to), counted one bit at a time. */
function plainDistance(query: Uint32Array, sketch: Uint32Array, from: number, to: number): number {
  let total = 0;
  for (let word = from; word < to; word += 1) {
    const differing = ((query[word] ?? 0) ^ (sketch[word] ?? 0)) >>> 0;
    for (let bit = 0; bit < 32; bit += 1) total += (differing >>> bit) & 1;
  }
  return total;
}

/** How many of the distances are 0, 1, …, 256 (0xffff, a row left out, is not counted). */
function histogramOf(distances: readonly number[]): number[] {
  const slots = Array.from({ length: 257 }, () => 0);
  for (const distance of distances) if (distance !== 0xffff) slots[distance] = (slots[distance] as number) + 1;
  return slots;
}

/** Writes a row (attribute word and first 8 sketch words; the other 24 in the second part) at the end of the block. */
function append(arena: SketchArena, block: ArenaBlock, attributes: number, sketch: Uint32Array): void {
  if (block.count === block.capacity) arena.grow(block, block.capacity * 2);
  const base = block.offset / 4 + block.count * RECORD_WORDS;
  const words = arena.words();
  words[base] = attributes;
  words.set(sketch.subarray(0, 8), base + 1);
  words.set(sketch.subarray(8), (fineOffsetOf(block) + block.count * FINE_BYTES) / 4);
  block.count += 1;
}

/** A row as written: its attribute word, then its 32 sketch words. */
function rowOf(arena: SketchArena, block: ArenaBlock, row: number): number[] {
  const words = arena.words();
  const base = block.offset / 4 + row * RECORD_WORDS;
  const fine = (fineOffsetOf(block) + row * FINE_BYTES) / 4;
  return [...words.subarray(base, base + RECORD_WORDS), ...words.subarray(fine, fine + FINE_BYTES / 4)];
}

describe('sketch arena', () => {
  const rows: { block: number; attributes: number; sketch: Uint32Array }[] = [];
  const arena = createSketchArena();
  const blocks = [arena.allocate(4), arena.allocate(4)];
  for (let index = 0; index < 300; index += 1) {
    const row = { block: index % 2, attributes: index % 3 === 0 ? 0x0102 : 0x0101, sketch: randomSketch() };
    rows.push(row);
    append(arena, blocks[row.block] as ArenaBlock, row.attributes, row.sketch);
  }
  /** The rows in the order of the blocks laid end to end. */
  const inScanOrder = [0, 1].flatMap((block) => rows.filter((row) => row.block === block));
  const query = randomSketch();

  it('gives each row its distance over the first 256 bits, and 0xffff to the rows the filter leaves out', () => {
    const all = arena.scan(blocks, query, 0xff00, 0x0100, 0);
    expect([...all.distances]).toEqual(inScanOrder.map((row) => plainDistance(query, row.sketch, 0, 8)));
    expect(all.kept).toBe(300);
    expect([...all.histogram]).toEqual(histogramOf([...all.distances]));

    const filtered = arena.scan(blocks, query, 0x00ff, 0x0002, 0);
    expect([...filtered.distances]).toEqual(
      inScanOrder.map((row) => (row.attributes === 0x0102 ? plainDistance(query, row.sketch, 0, 8) : 0xffff)),
    );
    expect(filtered.kept).toBe(100);
    expect([...filtered.histogram]).toEqual(histogramOf([...filtered.distances]));
    expect(filtered.histogram.reduce((sum, slot) => sum + slot, 0)).toBe(100);
  });

  it('picks the rows under the cut and the first ones at it, and measures them over their other 768 bits', () => {
    const scan = arena.scan(blocks, query, 0, 0, 300);
    const near = inScanOrder.map((row) => plainDistance(query, row.sketch, 0, 8));
    const cut = [...near].sort((a, b) => a - b)[40] as number;
    let atCut = 2;
    const wanted = near.flatMap((distance, at) => (distance < cut || (distance === cut && atCut-- > 0) ? [at] : []));
    const picked = scan.pick(cut, 2, 300);
    expect([...scan.places.subarray(0, picked)]).toEqual(wanted);
    expect([...scan.measure(picked)]).toEqual(
      wanted.map((at) => plainDistance(query, (inScanOrder[at] as (typeof rows)[number]).sketch, 8, 32)),
    );
    expect(scan.pick(cut, 2, 5)).toBe(5);
  });

  it('keeps the rows of every block through growth, releases and packing', () => {
    const packing = createSketchArena({ packAfterBytes: 0 });
    const grown = Array.from({ length: 6 }, () => packing.allocate(2));
    const written = grown.map(() => [] as number[][]);
    for (let round = 0; round < 3_000; round += 1) {
      const at = round % grown.length;
      const sketch = randomSketch();
      append(packing, grown[at] as ArenaBlock, round, sketch);
      written[at]?.push([round, ...sketch]);
      if (round === 1_500) {
        packing.release(grown.splice(1, 1)[0] as ArenaBlock);
        written.splice(1, 1);
      }
    }
    grown.forEach((block, at) => {
      expect(Array.from({ length: block.count }, (_, row) => rowOf(packing, block, row))).toEqual(written[at]);
    });
    expect(grown.every((block) => block.offset % 16 === 0 && fineOffsetOf(block) % 16 === 0)).toBe(true);
    // Packing keeps the moved-out space at most the space in use (here from the first byte: packAfterBytes is 0).
    const { live, span } = packing.footprint();
    expect(span - live).toBeLessThanOrEqual(live);
    // The rest is the kernel's scratch: the query's 128 bytes, four 257-slot histograms and a counter, rounded up to 16.
    expect(live).toBe(
      grown.reduce((sum, block) => sum + block.bytes, 0) + Math.ceil((128 + 4 * 257 * 4 + 4) / 16) * 16,
    );
  });

  it('runs the kernel compiled from sketch-kernel.wat as it is now', async () => {
    const generated = await readFile(
      new URL('../../../../src/store/sqlite/vector-sketch/sketch-kernel.generated.ts', import.meta.url),
      'utf8',
    );
    expect(generated).toBe(generatedModule(await compileKernel()));
  });
});
