// The sketch arena: the WebAssembly first pass agrees with a plain count of differing bits and marks the rows the filter
// leaves out; blocks keep their rows through growth, releases and packing; and the kernel is its .wat compiled.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compileKernel, generatedModule } from '../../../scripts/build-kernel.js';
import { createSketchArena, RECORD_WORDS, type ArenaBlock, type SketchArena } from '../../../src/store/sqlite/memory-sketch-arena.js';
import { seededRandom } from '../../../bench/lib/topic-corpus.js';

const next = seededRandom(7);
const randomWords = (count: number) => Uint32Array.from({ length: count }, () => Math.floor(next() * 2 ** 32));

/** Differing bits of the first 8 words, counted one bit at a time. */
function plainDistance(query: Uint32Array, words: Uint32Array): number {
  let total = 0;
  for (let word = 0; word < 8; word += 1) {
    const differing = ((query[word] ?? 0) ^ (words[word] ?? 0)) >>> 0;
    for (let bit = 0; bit < 32; bit += 1) total += (differing >>> bit) & 1;
  }
  return total;
}

/** Writes a row (attribute word, then 8 sketch words) at the end of the block. */
function append(arena: SketchArena, block: ArenaBlock, attributes: number, sketch: Uint32Array): void {
  if (block.count === block.capacity) arena.grow(block, block.capacity * 2);
  const base = block.offset / 4 + block.count * RECORD_WORDS;
  const words = arena.words();
  words[base] = attributes;
  words.set(sketch, base + 1);
  block.count += 1;
}

const rowOf = (arena: SketchArena, block: ArenaBlock, row: number) => {
  const base = block.offset / 4 + row * RECORD_WORDS;
  return [...arena.words().subarray(base, base + RECORD_WORDS)];
};

describe('sketch arena', () => {
  it('gives each row its distance over the first 256 bits, and 0xffff to the rows the filter leaves out', () => {
    const arena = createSketchArena();
    const blocks = [arena.allocate(4), arena.allocate(4)];
    const rows: { block: number; attributes: number; sketch: Uint32Array }[] = [];
    for (let index = 0; index < 300; index += 1) {
      const row = { block: index % 2, attributes: index % 3 === 0 ? 0x0102 : 0x0101, sketch: randomWords(8) };
      rows.push(row);
      append(arena, blocks[row.block] as ArenaBlock, row.attributes, row.sketch);
    }
    const query = randomWords(32);
    const { distances, histogram, kept } = arena.coarsePass(blocks, query, 0xff00, 0x0100);
    const expected = [0, 1].flatMap((block) => rows.filter((row) => row.block === block).map((row) => plainDistance(query, row.sketch)));
    expect([...distances]).toEqual(expected);
    expect(kept).toBe(300);
    expect(histogram.reduce((sum, slot) => sum + slot, 0)).toBe(300);

    const filtered = arena.coarsePass(blocks, query, 0x00ff, 0x0002);
    const wanted = [0, 1].flatMap((block) => rows.filter((row) => row.block === block).map((row) => (row.attributes === 0x0102 ? plainDistance(query, row.sketch) : 0xffff)));
    expect([...filtered.distances]).toEqual(wanted);
    expect(filtered.kept).toBe(100);
  });

  it('keeps the rows of every block through growth, releases and packing', () => {
    const arena = createSketchArena({ packAfterBytes: 0 });
    const blocks = Array.from({ length: 6 }, () => arena.allocate(2));
    const written = blocks.map(() => [] as number[][]);
    for (let round = 0; round < 3_000; round += 1) {
      const at = round % blocks.length;
      const sketch = randomWords(8);
      append(arena, blocks[at] as ArenaBlock, round, sketch);
      written[at]?.push([round, ...sketch]);
      if (round === 1_500) {
        arena.release(blocks.splice(1, 1)[0] as ArenaBlock);
        written.splice(1, 1);
      }
    }
    blocks.forEach((block, at) => {
      expect(Array.from({ length: block.count }, (_, row) => rowOf(arena, block, row))).toEqual(written[at]);
    });
    expect(blocks.every((block) => block.offset % 16 === 0)).toBe(true);
    // Packing keeps the moved-out space at most the space in use (here from the first byte: packAfterBytes is 0).
    const { live, span } = arena.footprint();
    expect(span - live).toBeLessThanOrEqual(live);
    // The rest is the kernel's scratch: the query's 32 bytes and the 257-slot histogram, rounded up to 16.
    expect(live).toBe(blocks.reduce((sum, block) => sum + block.bytes, 0) + Math.ceil((32 + 257 * 4) / 16) * 16);
  });

  it('runs the kernel compiled from memory-sketch-kernel.wat as it is now', async () => {
    const generated = await readFile(new URL('../../../src/store/sqlite/memory-sketch-kernel.generated.ts', import.meta.url), 'utf8');
    expect(generated).toBe(generatedModule(await compileKernel()));
  });
});
