// A vector's 8-bit code: each value scaled by 127 over the largest magnitude and rounded, so the cosine of two codes is
// within about a thousandth of their vectors' cosine, and the rerank reads 1 byte per value from memory, not 4 from SQLite.
import { align16 } from './sketch-kernel.js';

/** Vectors of more dimensions keep no code in memory (their rerank reads the stored vectors): at most 512 bytes an entry. */
export const CODED_MAX_DIMENSIONS = 512;

/** Bytes of a code for vectors of this many dimensions (zero-padded to 16), or 0 when they keep none. */
export function codeBytesFor(dimensions: number): number {
  return dimensions > 0 && dimensions <= CODED_MAX_DIMENSIONS ? align16(dimensions) : 0;
}

/** The code of a vector, `bytes` long; an all-zero vector's code is all zeros (it has no direction). */
export function vectorCode(values: Float32Array, bytes: number): Int8Array {
  const code = new Int8Array(bytes);
  let largest = 0;
  for (const value of values) largest = Math.max(largest, Math.abs(value));
  if (largest === 0 || !Number.isFinite(largest)) return code;
  const scale = 127 / largest;
  const length = Math.min(values.length, bytes);
  for (let index = 0; index < length; index += 1) code[index] = Math.round((values[index] as number) * scale);
  return code;
}
