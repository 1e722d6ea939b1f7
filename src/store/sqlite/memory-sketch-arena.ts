// The sketch rows' attribute words and first sketch words, in the WebAssembly memory the scan kernel reads: one block
// per scope, moved to the top when it grows, and every block packed down once moved-out space outweighs the rest.
import { SKETCH_KERNEL_WASM } from './memory-sketch-kernel.generated.js';

/** Per row: its attribute word, then its first 8 sketch words (the scan's first pass). */
export const RECORD_WORDS = 9;
export const RECORD_BYTES = RECORD_WORDS * 4;
const PAGE_BYTES = 65_536;
/** Moved-out space is packed away only past this much (and past the space in use), so a small index never packs. */
export const PACK_AFTER_BYTES = 1 << 20;
/** The kernel's scratch: the query's first 8 words, the histogram of first-pass distances, then a u16 per row searched. */
const QUERY_BYTES = 32;
const HISTOGRAM_SLOTS = 257;
const SCRATCH_HEAD_BYTES = QUERY_BYTES + HISTOGRAM_SLOTS * 4;

/** Space in the memory; `offset` (bytes, a multiple of 16) changes when the arena packs. */
interface Region {
  offset: number;
  bytes: number;
}

/** A scope's rows, from `offset`: `count` in use of room for `capacity`. */
export interface ArenaBlock extends Region {
  capacity: number;
  count: number;
}

export interface FirstPass {
  /** Per row of the blocks laid end to end, its distance over the first 256 bits; 0xffff where the filter leaves it out. */
  distances: Uint16Array;
  histogram: Uint32Array;
  /** Rows the filter kept. */
  kept: number;
}

export interface SketchArena {
  /** A block for `capacity` rows. */
  allocate(capacity: number): ArenaBlock;
  /** Gives the block room for `capacity` rows, moving it to the top unless it is there already. */
  grow(block: ArenaBlock, capacity: number): void;
  /** The block's space is no longer used. */
  release(block: ArenaBlock): void;
  /** The memory as words, for reading and writing rows: take it again after any allocate, grow or release. */
  words(): Uint32Array;
  /** Bytes in use by blocks and scratch, and bytes from the bottom to the top one (in use plus moved out). */
  footprint(): { live: number; span: number };
  /** The first pass over the blocks for this query and filter (attributes masked by `mask` equal to `wanted`). */
  coarsePass(blocks: readonly ArenaBlock[], query: Uint32Array, mask: number, wanted: number): FirstPass;
}

type CoarsePass = (records: number, count: number, query: number, mask: number, wanted: number, out: number, histogram: number) => number;

const kernelModule = new WebAssembly.Module(Buffer.from(SKETCH_KERNEL_WASM, 'base64'));

const align16 = (bytes: number) => Math.ceil(bytes / 16) * 16;

export function createSketchArena({ packAfterBytes = PACK_AFTER_BYTES }: { packAfterBytes?: number } = {}): SketchArena {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const kernel = new WebAssembly.Instance(kernelModule, { sketch: { memory } }).exports.coarsePass as CoarsePass;
  const regions = new Set<Region>();
  let top = 0;
  let live = 0;

  /** New space of `bytes` at the top, growing the memory when short. */
  function reserve(bytes: number): number {
    const short = top + bytes - memory.buffer.byteLength;
    if (short > 0) memory.grow(Math.ceil(short / PAGE_BYTES));
    const at = top;
    top += bytes;
    return at;
  }

  function add<T extends Region>(region: T): T {
    regions.add(region);
    live += region.bytes;
    return region;
  }

  /** Moves every region down, in order, so no space is left between them. */
  function packIfWasteful(): void {
    if (top - live <= Math.max(live, packAfterBytes)) return;
    const bytes = new Uint8Array(memory.buffer);
    let at = 0;
    for (const region of [...regions].sort((left, right) => left.offset - right.offset)) {
      bytes.copyWithin(at, region.offset, region.offset + region.bytes);
      region.offset = at;
      at += region.bytes;
    }
    top = at;
  }

  /** Room to its end for `bytes`, moving it to the top (its contents with it) when it is not the top region. */
  function resize(region: Region, bytes: number, keep: number): void {
    live += bytes - region.bytes;
    if (region.offset + region.bytes === top) {
      reserve(bytes - region.bytes);
    } else {
      const at = reserve(bytes);
      new Uint8Array(memory.buffer).copyWithin(at, region.offset, region.offset + keep);
      region.offset = at;
    }
    region.bytes = bytes;
    packIfWasteful();
  }

  const scratch = add<Region>({ offset: reserve(align16(SCRATCH_HEAD_BYTES)), bytes: align16(SCRATCH_HEAD_BYTES) });

  return {
    allocate(capacity) {
      const bytes = align16(capacity * RECORD_BYTES);
      return add({ offset: reserve(bytes), bytes, capacity, count: 0 });
    },
    grow(block, capacity) {
      resize(block, align16(capacity * RECORD_BYTES), block.count * RECORD_BYTES);
      block.capacity = capacity;
    },
    release(block) {
      if (!regions.delete(block)) return;
      live -= block.bytes;
      packIfWasteful();
    },
    words: () => new Uint32Array(memory.buffer),
    footprint: () => ({ live, span: top }),
    coarsePass(blocks, query, mask, wanted) {
      const rows = blocks.reduce((sum, block) => sum + block.count, 0);
      const needed = align16(SCRATCH_HEAD_BYTES + rows * 2);
      if (needed > scratch.bytes) resize(scratch, Math.max(needed, scratch.bytes * 2), 0);
      const histogramAt = scratch.offset + QUERY_BYTES;
      const distancesAt = scratch.offset + SCRATCH_HEAD_BYTES;
      new Uint32Array(memory.buffer, scratch.offset, QUERY_BYTES / 4).set(query.subarray(0, QUERY_BYTES / 4));
      new Uint32Array(memory.buffer, histogramAt, HISTOGRAM_SLOTS).fill(0);
      let kept = 0;
      let out = distancesAt;
      for (const block of blocks) {
        kept += kernel(block.offset, block.count, scratch.offset, mask, wanted, out, histogramAt);
        out += block.count * 2;
      }
      return { distances: new Uint16Array(memory.buffer, distancesAt, rows), histogram: new Uint32Array(memory.buffer, histogramAt, HISTOGRAM_SLOTS), kept };
    },
  };
}
