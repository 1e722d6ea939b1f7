// The rerank's exact cosine scores, computed by the sketch kernel (SIMD, summed in f64) in a memory of its own.
import { align16, instantiateSketchKernel, PAGE_BYTES } from './sketch-kernel.js';

/**
 * The cosine of the query with each vector of `vectors` (vectors of the query's length laid end to end): NaN for an
 * all-zero one, all NaN for an all-zero query. The scores are a view, valid until the next call.
 */
export type CosineScorer = (query: Float32Array, vectors: Float32Array) => Float64Array;

export function createCosineScorer(): CosineScorer {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const kernel = instantiateSketchKernel(memory);
  return (query, vectors) => {
    const dimensions = query.length;
    const count = dimensions === 0 ? 0 : Math.floor(vectors.length / dimensions);
    const vectorsAt = align16(dimensions * 4);
    const outAt = align16(vectorsAt + count * dimensions * 4);
    const short = outAt + count * 8 - memory.buffer.byteLength;
    if (short > 0) memory.grow(Math.ceil(short / PAGE_BYTES));
    new Float32Array(memory.buffer, 0, dimensions).set(query);
    new Float32Array(memory.buffer, vectorsAt, count * dimensions).set(vectors.subarray(0, count * dimensions));
    kernel.cosines(0, vectorsAt, count, dimensions, outAt);
    return new Float64Array(memory.buffer, outAt, count);
  };
}
