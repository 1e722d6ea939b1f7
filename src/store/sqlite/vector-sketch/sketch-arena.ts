// The sketch rows (and the vectors' 8-bit codes) of every scope in the WebAssembly memory the scan kernel reads: one block
// per scope, moved to the top when it grows, and every block packed down once moved-out space outweighs the rest.
import { align16, instantiateSketchKernel, PAGE_BYTES } from './sketch-kernel.js';
import { SKETCH_BYTES } from './sketch.js';

/** Per row, in the block's first part: its attribute word, then its first 8 sketch words (the scan's first pass). */
export const RECORD_WORDS = 9;
export const RECORD_BYTES = RECORD_WORDS * 4;
/** Per row, in the block's second part: its other 24 sketch words. In the third, when the arena keeps codes: its code. */
export const FINE_BYTES = 96;
/** Moved-out space is packed away only past this much (and past the space in use), so a small index never packs. */
export const PACK_AFTER_BYTES = 1 << 20;
/**
 * The kernel's scratch: the query's sketch, the histogram of first-pass distances (and three more the first pass counts
 * in), a counter, then per-search room.
 */
const HISTOGRAM_SLOTS = 257;
const COUNTER_AT = SKETCH_BYTES + 4 * HISTOGRAM_SLOTS * 4;
const SCRATCH_HEAD_BYTES = COUNTER_AT + 4;

/** Space in the memory; `offset` (bytes, a multiple of 16) changes when the arena packs. */
interface Region {
  offset: number;
  bytes: number;
}

/** A scope's rows: `count` in use of room for `capacity`; their records from `offset`, then their other words and codes. */
export interface ArenaBlock extends Region {
  capacity: number;
  count: number;
}

/** One search's two passes over its blocks, laid end to end. */
export interface BlockScan {
  /** Per row, its distance over the first 256 bits; 0xffff where the filter leaves it out. */
  distances: Uint16Array;
  histogram: Uint32Array;
  /** Rows the filter kept. */
  kept: number;
  /**
   * Picks, at most `limit` (at most the scan's room), the rows under `cut` and the first `atCut` at it, and returns how
   * many; `places` holds their places in `distances`.
   */
  pick(cut: number, atCut: number, limit: number): number;
  places: Uint32Array;
  /** Each of the first `count` picked rows' distance over the other 768 bits. */
  measure(count: number): Uint16Array;
  /**
   * The cosine of the query's code with the codes of these rows, as `locate` gives them (NaN where either is all zeros),
   * for an arena that keeps codes; as many rows as the scan's room at most.
   */
  codeCosines(code: Int8Array, rows: readonly ScannedRow[]): Float64Array;
  /** The block (its index in the blocks scanned) and the row in it of the row at `place`. */
  locate(place: number): ScannedRow;
}

/** A row of a scan: its block's index in the blocks scanned, and its row in that block. */
export interface ScannedRow {
  block: number;
  row: number;
}

export interface SketchArena {
  /** A block for `capacity` rows. */
  allocate(capacity: number): ArenaBlock;
  /** Gives the block room for `capacity` rows, moving it to the top unless it is there already. */
  grow(block: ArenaBlock, capacity: number): void;
  /** The block's space is no longer used. */
  release(block: ArenaBlock): void;
  /** The memory as words, for reading and writing rows: take it again after any allocate, grow, release or scan. */
  words(): Uint32Array;
  /** Bytes in use by blocks and scratch, and bytes from the bottom to the top one (in use plus moved out). */
  footprint(): { live: number; span: number };
  /**
   * The first pass over the blocks for this query and filter (attributes masked by `mask` equal to `wanted`), with
   * room for up to `room` rows in the second. The views are valid until the arena next changes.
   */
  scan(blocks: readonly ArenaBlock[], query: Uint32Array, mask: number, wanted: number, room: number): BlockScan;
}

const recordsBytes = (capacity: number) => align16(capacity * RECORD_BYTES);

/** Where the block's rows' other sketch words start: after room for its records. */
export const fineOffsetOf = (block: ArenaBlock): number => block.offset + recordsBytes(block.capacity);
/** Where the block's rows' codes start: after room for their other sketch words. */
export const codeOffsetOf = (block: ArenaBlock): number => fineOffsetOf(block) + block.capacity * FINE_BYTES;

export interface SketchArenaOptions {
  packAfterBytes?: number;
  /** Bytes of each row's code (a multiple of 16); 0 keeps none. */
  codeBytes?: number;
}

export function createSketchArena({
  packAfterBytes = PACK_AFTER_BYTES,
  codeBytes = 0,
}: SketchArenaOptions = {}): SketchArena {
  const blockBytes = (capacity: number) => recordsBytes(capacity) + capacity * (FINE_BYTES + codeBytes);
  const memory = new WebAssembly.Memory({ initial: 1 });
  const kernel = instantiateSketchKernel(memory);
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

  /** Room for `bytes`, in place when the region is the top one, else at the top (nothing of it copied). */
  function resize(region: Region, bytes: number): number {
    const from = region.offset;
    live += bytes - region.bytes;
    if (region.offset + region.bytes === top) reserve(bytes - region.bytes);
    else region.offset = reserve(bytes);
    region.bytes = bytes;
    return from;
  }

  const scratch = add<Region>({ offset: reserve(align16(SCRATCH_HEAD_BYTES)), bytes: align16(SCRATCH_HEAD_BYTES) });

  return {
    allocate(capacity) {
      const bytes = blockBytes(capacity);
      return add({ offset: reserve(bytes), bytes, capacity, count: 0 });
    },
    grow(block, capacity) {
      const fineFrom = fineOffsetOf(block);
      const codeFrom = codeOffsetOf(block);
      const from = resize(block, blockBytes(capacity));
      block.capacity = capacity;
      // The last part first: in place, each part grows over where the next one was.
      const bytes = new Uint8Array(memory.buffer);
      bytes.copyWithin(codeOffsetOf(block), codeFrom, codeFrom + block.count * codeBytes);
      bytes.copyWithin(fineOffsetOf(block), fineFrom, fineFrom + block.count * FINE_BYTES);
      bytes.copyWithin(block.offset, from, from + block.count * RECORD_BYTES);
      packIfWasteful();
    },
    release(block) {
      if (!regions.delete(block)) return;
      live -= block.bytes;
      packIfWasteful();
    },
    words: () => new Uint32Array(memory.buffer),
    footprint: () => ({ live, span: top }),
    scan(blocks, query, mask, wanted, room) {
      const rows = blocks.reduce((sum, block) => sum + block.count, 0);
      const distancesAt = SCRATCH_HEAD_BYTES;
      const placesAt = align16(distancesAt + rows * 2);
      const addressesAt = placesAt + room * 4;
      const measuredAt = addressesAt + room * 4;
      const codeAt = align16(measuredAt + room * 2);
      const scoresAt = align16(codeAt + codeBytes);
      const needed = align16(scoresAt + room * 8);
      if (needed > scratch.bytes) {
        resize(scratch, Math.max(needed, scratch.bytes * 2));
        packIfWasteful();
      }
      const base = scratch.offset;
      new Uint32Array(memory.buffer, base, SKETCH_BYTES / 4).set(query.subarray(0, SKETCH_BYTES / 4));
      const histogram = new Uint32Array(memory.buffer, base + SKETCH_BYTES, HISTOGRAM_SLOTS);
      histogram.fill(0);
      let kept = 0;
      let out = base + distancesAt;
      for (const block of blocks) {
        kept += kernel.coarsePass(block.offset, block.count, base, mask, wanted, out, base + SKETCH_BYTES);
        out += block.count * 2;
      }
      const locate = (place: number) => {
        let row = place;
        for (let block = 0; block < blocks.length; block += 1) {
          const { count } = blocks[block] as ArenaBlock;
          if (row < count) return { block, row };
          row -= count;
        }
        throw new RangeError(`place ${place} is past the blocks scanned`);
      };
      return {
        distances: new Uint16Array(memory.buffer, base + distancesAt, rows),
        histogram,
        kept,
        pick(cut, atCut, limit) {
          new Uint32Array(memory.buffer, base + COUNTER_AT, 1)[0] = atCut;
          let picked = 0;
          let first = 0;
          for (const block of blocks) {
            if (picked >= limit) break;
            const distances = base + distancesAt + first * 2;
            picked += kernel.pick(
              distances,
              block.count,
              cut,
              base + COUNTER_AT,
              first,
              fineOffsetOf(block),
              base + placesAt + picked * 4,
              base + addressesAt + picked * 4,
              limit - picked,
            );
            first += block.count;
          }
          return picked;
        },
        places: new Uint32Array(memory.buffer, base + placesAt, room),
        measure(count) {
          kernel.finePass(base + addressesAt, count, base, base + measuredAt);
          return new Uint16Array(memory.buffer, base + measuredAt, count);
        },
        codeCosines(code, rows) {
          if (codeBytes === 0) throw new Error('this sketch arena keeps no codes');
          if (rows.length > room) throw new RangeError(`${rows.length} rows past the scan's room of ${room}`);
          new Int8Array(memory.buffer, base + codeAt, codeBytes).set(code.subarray(0, codeBytes));
          // The rows' code addresses go where the picked rows' addresses were: the pick is done with them.
          const addresses = new Uint32Array(memory.buffer, base + addressesAt, rows.length);
          rows.forEach(({ block, row }, index) => {
            addresses[index] = codeOffsetOf(blocks[block] as ArenaBlock) + row * codeBytes;
          });
          kernel.codeCosines(base + codeAt, base + addressesAt, rows.length, codeBytes, base + scoresAt);
          return new Float64Array(memory.buffer, base + scoresAt, rows.length);
        },
        locate,
      };
    },
  };
}
