// The sketches of one vector index held in memory, grouped by tenant, agent and owner: a search scans only its scope's
// sketches, applies the type, trust and status filters on interned codes as it goes, and keeps the closest by Hamming
// distance as candidates for the exact rerank.
import {
  codeOffsetOf,
  createSketchArena,
  FINE_BYTES,
  fineOffsetOf,
  RECORD_WORDS,
  type SketchArena,
} from './sketch-arena.js';
import { closestRows, rankedRows, type SketchRows } from './sketch-scan.js';
import { ownerCondition, passesOwnerCondition, type MemoryReader } from '../../index.js';
import type { KnownEntry } from './vectors.js';

/** What a search is narrowed by; every defined field must match, and the owner condition of `readableBy` (ownerCondition). */
export interface SketchFilter {
  tenantId?: string | undefined;
  agentId?: string | undefined;
  readableBy?: MemoryReader | undefined;
  memoryType?: string | undefined;
  trustLevel?: string | undefined;
  status?: string | undefined;
}

export interface SketchRow {
  seq: number;
  /** The entry's id, kept so a search names its results without reading the file. */
  id: string;
  tenantId: string;
  agentId: string;
  ownerId: string | null;
  memoryType: string;
  trustLevel: string;
  status: string;
  sketch: Uint32Array;
  /** The vector's 8-bit code, in an index that keeps codes. */
  vectorCode?: Int8Array | undefined;
}

export interface SketchIndex {
  /** Adds the entry's sketch, or replaces it when the entry is already there. */
  put(row: SketchRow): void;
  remove(seq: number): void;
  setStatus(seq: number, status: string): void;
  /** The id and scope of the entry with this seq, when the index holds it. */
  entryOf(seq: number): KnownEntry | undefined;
  /** The seqs of up to `count` entries matching the filter whose sketches are closest to this one, in no order. */
  nearest(sketch: Uint32Array, filter: SketchFilter, count: number): number[];
  /**
   * In an index that keeps codes: of those `count` closest, the best `limit` by the cosine of their codes with
   * `vectorCode`, best first (ties: the older entry); an entry whose code is all zeros is never one.
   */
  ranked(
    sketch: Uint32Array,
    vectorCode: Int8Array,
    filter: SketchFilter,
    count: number,
    limit: number,
  ): { seq: number; id: string; score: number }[];
  /** Bytes of each entry's code kept (0: none). */
  readonly codeBytes: number;
  readonly size: number;
}

/** Per row, one word: the codes (in the index's dictionary) of its memory type, trust level and status, a byte each. */
const TYPE_SHIFT = 0;
const TRUST_SHIFT = 8;
const STATUS_SHIFT = 16;
const INITIAL_ROWS = 64;

interface Scope extends SketchRows {
  tenantId: string;
  agentId: string;
  ownerId: string | null;
}

const pairKey = (tenantId: string, agentId: string) => `${tenantId}\u0000${agentId}`;
/** NUL never appears in a tenant, agent or token id; an operator's entries (owner null) have an empty owner part. */
const scopeKey = (tenantId: string, agentId: string, ownerId: string | null) =>
  `${tenantId}\u0000${agentId}\u0000${ownerId ?? ''}`;

/** Sketch words of a row in its record (after the attribute word); the rest are in the block's second part. */
const RECORD_SKETCH_WORDS = RECORD_WORDS - 1;
const FINE_WORDS = FINE_BYTES / 4;

/** Room for twice the rows: the arena block, and the seqs kept here. */
function grown(arena: SketchArena, scope: Scope): void {
  const rows = scope.block.capacity * 2;
  arena.grow(scope.block, rows);
  const seqs = new Float64Array(rows);
  seqs.set(scope.seqs);
  scope.seqs = seqs;
}

export function createSketchIndex({ codeBytes = 0 }: { codeBytes?: number } = {}): SketchIndex {
  const arena = createSketchArena({ codeBytes });
  const scopes = new Map<string, Scope>();
  /** The scopes of each tenant and agent, one per owner: a tenant-and-agent search reads only these. */
  const byPair = new Map<string, Scope[]>();
  /** Where each entry is: its scope and row. */
  const places = new Map<number, { scope: Scope; row: number }>();
  const codes = new Map<string, number>();
  const codeOf = (value: string): number => {
    let code = codes.get(value);
    if (code === undefined) {
      // Types, trust levels and statuses are short enumerations; a dictionary past a byte means a caller bug.
      if (codes.size >= 255) throw new RangeError('more than 255 distinct memory attribute values');
      code = codes.size + 1;
      codes.set(value, code);
    }
    return code;
  };

  function remove(seq: number): void {
    const place = places.get(seq);
    if (place === undefined) return;
    const { scope, row } = place;
    const last = scope.block.count - 1;
    const movedId = scope.ids.pop() ?? '';
    if (row !== last) {
      const moved = scope.seqs[last] ?? 0;
      scope.seqs[row] = moved;
      scope.ids[row] = movedId;
      const base = scope.block.offset / 4;
      const fine = fineOffsetOf(scope.block) / 4;
      const words = arena.words();
      words.copyWithin(base + row * RECORD_WORDS, base + last * RECORD_WORDS, base + (last + 1) * RECORD_WORDS);
      words.copyWithin(fine + row * FINE_WORDS, fine + last * FINE_WORDS, fine + (last + 1) * FINE_WORDS);
      const code = codeOffsetOf(scope.block);
      new Int8Array(words.buffer).copyWithin(
        code + row * codeBytes,
        code + last * codeBytes,
        code + (last + 1) * codeBytes,
      );
      places.set(moved, { scope, row });
    }
    scope.block.count = last;
    places.delete(seq);
  }

  function matchingScopes(filter: SketchFilter): Scope[] {
    const owner = ownerCondition(filter);
    if (filter.tenantId !== undefined && filter.agentId !== undefined) {
      if (owner !== undefined && owner.tenantIds.length === 0) {
        const scope = scopes.get(scopeKey(filter.tenantId, filter.agentId, owner.ownerId));
        return scope === undefined ? [] : [scope];
      }
      return byPair.get(pairKey(filter.tenantId, filter.agentId)) ?? [];
    }
    const out: Scope[] = [];
    for (const scope of scopes.values()) {
      if (filter.tenantId !== undefined && scope.tenantId !== filter.tenantId) continue;
      if (filter.agentId !== undefined && scope.agentId !== filter.agentId) continue;
      if (!passesOwnerCondition(owner, scope.tenantId, scope.ownerId)) continue;
      out.push(scope);
    }
    return out;
  }

  /** The attribute bits a filter looks at and the value they must have; undefined when a wanted value is in no entry. */
  function wantedAttributes(filter: SketchFilter): { mask: number; wanted: number } | undefined {
    let mask = 0;
    let wanted = 0;
    for (const [value, shift] of [
      [filter.memoryType, TYPE_SHIFT],
      [filter.trustLevel, TRUST_SHIFT],
      [filter.status, STATUS_SHIFT],
    ] as const) {
      if (value === undefined) continue;
      const code = codes.get(value);
      if (code === undefined) return undefined;
      mask |= 0xff << shift;
      wanted |= code << shift;
    }
    return { mask, wanted };
  }

  return {
    get size() {
      return places.size;
    },
    codeBytes,
    put(row) {
      if (codeBytes > 0 && row.vectorCode?.length !== codeBytes)
        throw new RangeError(`entry ${row.seq} needs a code of ${codeBytes} bytes`);
      remove(row.seq);
      const key = scopeKey(row.tenantId, row.agentId, row.ownerId);
      let scope = scopes.get(key);
      if (scope === undefined) {
        scope = {
          tenantId: row.tenantId,
          agentId: row.agentId,
          ownerId: row.ownerId,
          block: arena.allocate(INITIAL_ROWS),
          seqs: new Float64Array(INITIAL_ROWS),
          ids: [],
        };
        scopes.set(key, scope);
        const pair = pairKey(row.tenantId, row.agentId);
        const siblings = byPair.get(pair);
        if (siblings === undefined) byPair.set(pair, [scope]);
        else siblings.push(scope);
      }
      if (scope.block.count === scope.block.capacity) grown(arena, scope);
      const at = scope.block.count;
      const base = scope.block.offset / 4 + at * RECORD_WORDS;
      const words = arena.words();
      words[base] =
        (codeOf(row.memoryType) << TYPE_SHIFT) |
        (codeOf(row.trustLevel) << TRUST_SHIFT) |
        (codeOf(row.status) << STATUS_SHIFT);
      words.set(row.sketch.subarray(0, RECORD_SKETCH_WORDS), base + 1);
      words.set(
        row.sketch.subarray(RECORD_SKETCH_WORDS, RECORD_SKETCH_WORDS + FINE_WORDS),
        fineOffsetOf(scope.block) / 4 + at * FINE_WORDS,
      );
      if (codeBytes > 0 && row.vectorCode !== undefined)
        new Int8Array(words.buffer).set(row.vectorCode, codeOffsetOf(scope.block) + at * codeBytes);
      scope.seqs[at] = row.seq;
      scope.ids.push(row.id);
      scope.block.count += 1;
      places.set(row.seq, { scope, row: at });
    },
    remove,
    entryOf(seq) {
      const place = places.get(seq);
      if (place === undefined) return undefined;
      const { scope, row } = place;
      const id = scope.ids[row];
      return id === undefined
        ? undefined
        : { id, tenantId: scope.tenantId, agentId: scope.agentId, ownerId: scope.ownerId };
    },
    setStatus(seq, status) {
      const place = places.get(seq);
      if (place === undefined) return;
      const { scope, row } = place;
      const words = arena.words();
      const at = scope.block.offset / 4 + row * RECORD_WORDS;
      words[at] = ((words[at] ?? 0) & ~(0xff << STATUS_SHIFT)) | (codeOf(status) << STATUS_SHIFT);
    },
    nearest(sketch, filter, count) {
      const attributes = wantedAttributes(filter);
      if (attributes === undefined || count <= 0) return [];
      return closestRows(arena, matchingScopes(filter), sketch, attributes.mask, attributes.wanted, count);
    },
    ranked(sketch, vectorCode, filter, count, limit) {
      const attributes = wantedAttributes(filter);
      if (attributes === undefined || count <= 0 || limit <= 0) return [];
      return rankedRows(
        arena,
        matchingScopes(filter),
        { sketch, vectorCode },
        attributes.mask,
        attributes.wanted,
        count,
        limit,
      );
    },
  };
}
