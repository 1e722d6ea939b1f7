// The vector lane's sketches: what a sketch keeps of a vector's direction, and the in-memory index that finds the
// closest sketches inside a scope and filter.
import { describe, expect, it } from 'vitest';
import { hashingVector } from '../../../../src/providers/index.js';
import { createSketchIndex, type SketchRow } from '../../../../src/store/sqlite/vector-sketch/sketch-index.js';
import { SKETCH_BITS, SKETCH_WORDS, sketchOf } from '../../../../src/store/sqlite/vector-sketch/sketch.js';
import { codeBytesFor, vectorCode } from '../../../../src/store/sqlite/vector-sketch/vector-code.js';

const hamming = (left: Uint32Array, right: Uint32Array) => {
  let total = 0;
  for (let word = 0; word < SKETCH_WORDS; word += 1) {
    const differing = ((left[word] ?? 0) ^ (right[word] ?? 0)) >>> 0;
    for (let bit = 0; bit < 32; bit += 1) total += (differing >>> bit) & 1;
  }
  return total;
};

const text = (words: string) => sketchOf(Float32Array.from(hashingVector(words)));

/** A vector at `degrees` from (1, 0, 0, …) in the plane of its first two axes, of any length. */
const atAngle = (degrees: number, dimensions = 256) => {
  const values = new Float32Array(dimensions);
  values[0] = Math.cos((degrees * Math.PI) / 180);
  values[1] = Math.sin((degrees * Math.PI) / 180);
  return values;
};

describe('memory vector sketches', () => {
  it('estimates the angle between two vectors by the share of differing bits', () => {
    const base = sketchOf(atAngle(0));
    for (const degrees of [0, 30, 90, 150, 180]) {
      // Each bit differs with probability angle / 180°, so 1,024 bits estimate it to a few degrees.
      expect(Math.abs((hamming(base, sketchOf(atAngle(degrees))) / SKETCH_BITS) * 180 - degrees)).toBeLessThan(12);
    }
  });

  it('sketches any length, the same vector always alike, and scale does not change it', () => {
    for (const dimensions of [2, 3, 384, 1536]) {
      const vector = atAngle(40, dimensions);
      expect(sketchOf(vector)).toEqual(sketchOf(Float32Array.from(vector)));
      expect(sketchOf(vector)).toEqual(sketchOf(vector.map((value) => value * 7)));
    }
    expect(sketchOf(new Float32Array(256)).every((word) => word === 0)).toBe(true);
  });

  it('puts texts that share words closer than texts that do not', () => {
    const query = text('allergic to peanuts and shellfish');
    expect(hamming(query, text('the user has a peanut allergy and avoids shellfish'))).toBeLessThan(
      hamming(query, text('meeting moved to thursday at noon')),
    );
  });
});

/** A row of tenant-a's agent-1, an active trusted fact, sketched from `values`. */
const sketchRow = (seq: number, values: Float32Array, fields: Partial<SketchRow> = {}): SketchRow => ({
  seq,
  id: `entry-${seq}`,
  tenantId: 'tenant-a',
  agentId: 'agent-1',
  ownerId: null,
  memoryType: 'fact',
  trustLevel: 'trusted',
  status: 'active',
  sketch: sketchOf(values),
  ...fields,
});

describe('sketch index', () => {
  const row = (seq: number, degrees: number, fields: Partial<SketchRow> = {}): SketchRow =>
    sketchRow(seq, atAngle(degrees), fields);
  const query = sketchOf(atAngle(0));
  const scope = { tenantId: 'tenant-a', agentId: 'agent-1' };

  it('returns the closest rows of the scope when there are more than asked for', () => {
    const index = createSketchIndex();
    for (let seq = 1; seq <= 4_000; seq += 1) index.put(row(seq, (seq * 179) / 4_000));
    index.put(row(4_001, 0, { agentId: 'agent-2' }));
    for (const count of [20, 500]) {
      const nearest = index.nearest(query, scope, count);
      expect(nearest).toHaveLength(count);
      // The smallest angles are the first seqs; sketches only estimate angles, so a few near the edge trade places.
      expect(nearest.filter((seq) => seq <= count * 1.2).length).toBeGreaterThanOrEqual(count * 0.9);
    }
  });

  it('returns the closest rows across scopes, whichever scope each is in', () => {
    const index = createSketchIndex();
    for (let seq = 1; seq <= 3_000; seq += 1) index.put(row(seq, (seq * 179) / 3_000, { agentId: `agent-${seq % 3}` }));
    const nearest = index.nearest(query, { tenantId: 'tenant-a' }, 60);
    expect(nearest).toHaveLength(60);
    expect(nearest.filter((seq) => seq <= 72).length).toBeGreaterThanOrEqual(54);
    expect(new Set(nearest.map((seq) => seq % 3))).toEqual(new Set([0, 1, 2]));
  });

  it('keeps to the tenant, the agent and the type, trust and status filters', () => {
    const index = createSketchIndex();
    index.put(row(1, 0));
    index.put(row(2, 0, { agentId: 'agent-2' }));
    index.put(row(3, 0, { tenantId: 'tenant-b' }));
    index.put(row(4, 0, { memoryType: 'preference', trustLevel: 'untrusted' }));
    index.put(row(5, 0, { status: 'demoted' }));
    const sorted = (seqs: number[]) => [...seqs].sort((a, b) => a - b);
    expect(sorted(index.nearest(query, scope, 10))).toEqual([1, 4, 5]);
    expect(sorted(index.nearest(query, { tenantId: 'tenant-a' }, 10))).toEqual([1, 2, 4, 5]);
    expect(sorted(index.nearest(query, { agentId: 'agent-1' }, 10))).toEqual([1, 3, 4, 5]);
    expect(index.nearest(query, { ...scope, memoryType: 'preference' }, 10)).toEqual([4]);
    expect(index.nearest(query, { ...scope, trustLevel: 'untrusted' }, 10)).toEqual([4]);
    expect(index.nearest(query, { ...scope, status: 'demoted' }, 10)).toEqual([5]);
    expect(index.nearest(query, { ...scope, memoryType: 'instruction' }, 10)).toEqual([]);
    expect(index.nearest(query, { tenantId: 'tenant-c' }, 10)).toEqual([]);
  });

  it('follows replacements, removals and status changes', () => {
    const index = createSketchIndex();
    for (let seq = 1; seq <= 100; seq += 1) index.put(row(seq, seq));
    index.put(row(50, 0, { agentId: 'agent-2' }));
    index.remove(1);
    index.remove(100);
    index.remove(1);
    index.setStatus(2, 'demoted');
    expect(index.size).toBe(98);
    const active = index.nearest(query, { ...scope, status: 'active' }, 200);
    expect(active).toHaveLength(96);
    expect(active).not.toContain(1);
    expect(active).not.toContain(2);
    expect(active).not.toContain(50);
    expect(index.nearest(query, { tenantId: 'tenant-a', agentId: 'agent-2' }, 5)).toEqual([50]);
    expect(index.nearest(query, { ...scope, status: 'demoted' }, 5)).toEqual([2]);
  });

  it('names each entry it holds, with its scope, through replacements and removals', () => {
    const index = createSketchIndex();
    for (let seq = 1; seq <= 100; seq += 1) index.put(row(seq, seq));
    index.put(row(50, 0, { agentId: 'agent-2', id: 'moved-50' }));
    // Removing early rows moves the scope's last rows (and their ids) into the gaps.
    for (const seq of [1, 2, 3]) index.remove(seq);
    expect(index.entryOf(1)).toBeUndefined();
    expect(index.entryOf(50)).toEqual({ id: 'moved-50', tenantId: 'tenant-a', agentId: 'agent-2', ownerId: null });
    for (let seq = 4; seq <= 100; seq += 1) {
      if (seq !== 50) expect(index.entryOf(seq)).toEqual({ id: `entry-${seq}`, ...scope, ownerId: null });
    }
    expect(index.entryOf(101)).toBeUndefined();
  });
});

describe('sketch index with codes', () => {
  const bytes = codeBytesFor(256);
  const scope = { tenantId: 'tenant-a', agentId: 'agent-1' };
  const coded = (seq: number, values: Float32Array, fields: Partial<SketchRow> = {}): SketchRow =>
    sketchRow(seq, values, { vectorCode: vectorCode(values, bytes), ...fields });
  /** The cosine of two codes, in plain arithmetic. */
  const codeCosine = (left: Int8Array, right: Int8Array) => {
    let dot = 0;
    let leftNorm = 0;
    let rightNorm = 0;
    left.forEach((value, index) => {
      dot += value * (right[index] ?? 0);
      leftNorm += value * value;
      rightNorm += (right[index] ?? 0) ** 2;
    });
    return dot / Math.sqrt(leftNorm * rightNorm);
  };

  it('ranks the closest rows by the cosine of their codes, best first, through growth and removals', () => {
    const index = createSketchIndex({ codeBytes: bytes });
    // 300 rows grow the scope's block from 64 rows several times; removals move its last rows into the gaps.
    for (let seq = 1; seq <= 300; seq += 1) index.put(coded(seq, atAngle((seq - 1) * 0.6)));
    for (const seq of [1, 4, 9, 16]) index.remove(seq);
    index.put(coded(301, atAngle(0), { agentId: 'agent-2' }));
    // The first rows, and the last ones (moved into the removed rows' places).
    for (const [degrees, seqs] of [
      [0, [2, 3, 5, 6, 7, 8, 10, 11, 12, 13]],
      [179.4, [300, 299, 298, 297, 296, 295, 294, 293, 292, 291]],
    ] as const) {
      const query = atAngle(degrees);
      const ranked = index.ranked(sketchOf(query), vectorCode(query, bytes), scope, 240, 10);
      expect(ranked.map((hit) => hit.seq)).toEqual(seqs);
      expect(ranked.map((hit) => hit.id)).toEqual(seqs.map((seq) => `entry-${seq}`));
      for (const { seq, score } of ranked) {
        expect(score).toBeCloseTo(
          codeCosine(vectorCode(query, bytes), vectorCode(atAngle((seq - 1) * 0.6), bytes)),
          12,
        );
        expect(score).toBeCloseTo(Math.cos((((seq - 1) * 0.6 - degrees) * Math.PI) / 180), 2);
      }
    }
  });

  it('keeps to the filter, and leaves out rows whose vector is all zeros', () => {
    const index = createSketchIndex({ codeBytes: bytes });
    index.put(coded(1, atAngle(10)));
    index.put(coded(2, new Float32Array(256)));
    index.put(coded(3, atAngle(5), { memoryType: 'preference' }));
    index.put(coded(4, atAngle(1), { tenantId: 'tenant-b' }));
    const query = atAngle(0);
    const seqsOf = (filter: Parameters<typeof index.ranked>[2]) =>
      index.ranked(sketchOf(query), vectorCode(query, bytes), filter, 240, 10).map((hit) => hit.seq);
    expect(seqsOf(scope)).toEqual([3, 1]);
    expect(seqsOf({ ...scope, memoryType: 'fact' })).toEqual([1]);
    expect(index.ranked(sketchOf(query), new Int8Array(bytes), scope, 240, 10)).toEqual([]);
  });

  it('asks every row for a code of its size', () => {
    const index = createSketchIndex({ codeBytes: bytes });
    expect(() => index.put(coded(1, atAngle(0), { vectorCode: undefined }))).toThrow(RangeError);
    expect(() => index.put(coded(1, atAngle(0), { vectorCode: new Int8Array(16) }))).toThrow(RangeError);
    expect(codeBytesFor(1_536)).toBe(0);
    expect(codeBytesFor(3)).toBe(16);
  });
});
