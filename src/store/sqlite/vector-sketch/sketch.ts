// A vector's 1,024-bit sign sketch: the signs of 1,024 random orthogonal projections (random sign flips and Walsh-Hadamard
// transforms, three rounds), so the Hamming distance of two sketches estimates the angle between their vectors.
import { createHash } from 'node:crypto';

export const SKETCH_BITS = 1024;
export const SKETCH_WORDS = SKETCH_BITS / 32;
export const SKETCH_BYTES = SKETCH_BITS / 8;

/** Sign flips and transforms per block: three rounds come close to a uniformly random rotation. */
const ROUNDS = 3;
/**
 * The flips are the bits of SHAKE-256 over this label and the width, so every process sketches a vector alike and a
 * stored sketch stays valid; changing it (or the rounds) changes every sketch, and needs a migration that clears them.
 */
const FLIPS_LABEL = 'memory-sketch-v1';

interface Rotation {
  /** The vector is zero-padded to this power of two. */
  width: number;
  /** Per block of `width` output bits, ROUNDS sign-flip vectors. */
  flips: Float32Array[][];
  scratch: Float64Array;
}

const rotations = new Map<number, Rotation>();

function rotationFor(dimensions: number): Rotation {
  const known = rotations.get(dimensions);
  if (known !== undefined) return known;
  let width = 1;
  while (width < dimensions) width *= 2;
  const blocks = Math.ceil(SKETCH_BITS / width);
  const bits = createHash('shake256', { outputLength: Math.ceil((blocks * ROUNDS * width) / 8) })
    .update(`${FLIPS_LABEL}:${width}`)
    .digest();
  let bit = 0;
  const nextFlip = () => {
    const flip = ((bits[bit >>> 3] ?? 0) >>> (bit & 7)) & 1 ? -1 : 1;
    bit += 1;
    return flip;
  };
  const flips = Array.from({ length: blocks }, () =>
    Array.from({ length: ROUNDS }, () => Float32Array.from({ length: width }, nextFlip)),
  );
  const rotation = { width, flips, scratch: new Float64Array(width) };
  rotations.set(dimensions, rotation);
  return rotation;
}

/** In-place fast Walsh-Hadamard transform (unnormalised: only the signs are kept). */
function walshHadamard(values: Float64Array): void {
  for (let half = 1; half < values.length; half *= 2) {
    for (let start = 0; start < values.length; start += half * 2) {
      for (let index = start; index < start + half; index += 1) {
        const left = values[index] ?? 0;
        const right = values[index + half] ?? 0;
        values[index] = left + right;
        values[index + half] = left - right;
      }
    }
  }
}

/** The sketch of a vector of any length; an all-zero vector sketches to all zeros. */
export function sketchOf(values: Float32Array): Uint32Array {
  const sketch = new Uint32Array(SKETCH_WORDS);
  const { width, flips, scratch } = rotationFor(values.length);
  flips.forEach((rounds, block) => {
    scratch.fill(0);
    scratch.set(values);
    for (const flip of rounds) {
      for (let index = 0; index < width; index += 1) scratch[index] = (scratch[index] ?? 0) * (flip[index] ?? 1);
      walshHadamard(scratch);
    }
    const first = block * width;
    const bits = Math.min(width, SKETCH_BITS - first);
    for (let index = 0; index < bits; index += 1) {
      const bit = first + index;
      if ((scratch[index] ?? 0) > 0) sketch[bit >>> 5] = (sketch[bit >>> 5] ?? 0) | (1 << (bit & 31));
    }
  });
  return sketch;
}

export function sketchBlob(sketch: Uint32Array): Buffer {
  return Buffer.from(sketch.buffer, sketch.byteOffset, sketch.byteLength);
}

/** The stored sketch, or undefined when the blob is not one (then it is sketched again from the vector). */
export function blobSketch(blob: unknown): Uint32Array | undefined {
  if (!Buffer.isBuffer(blob) || blob.byteLength !== SKETCH_BYTES) return undefined;
  const sketch = new Uint32Array(SKETCH_WORDS);
  new Uint8Array(sketch.buffer).set(blob);
  return sketch;
}
