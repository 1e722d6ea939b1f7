// The sketch kernel's WebAssembly module (sketch-kernel.wat), compiled once per process, and its exports typed.
import { SKETCH_KERNEL_WASM } from './sketch-kernel.generated.js';

/** Every argument but the counts, sizes, cut and filter is a byte address in the instance's memory. */
export interface SketchKernel {
  coarsePass(
    records: number,
    count: number,
    query: number,
    mask: number,
    wanted: number,
    out: number,
    histogram: number,
  ): number;
  pick(
    distances: number,
    count: number,
    cut: number,
    atCut: number,
    first: number,
    fine: number,
    places: number,
    addresses: number,
    room: number,
  ): number;
  finePass(rows: number, count: number, query: number, out: number): void;
  cosines(query: number, vectors: number, count: number, dimensions: number, out: number): void;
  codeCosines(query: number, rows: number, count: number, bytes: number, out: number): void;
}

const kernelModule = new WebAssembly.Module(Buffer.from(SKETCH_KERNEL_WASM, 'base64'));

export const PAGE_BYTES = 65_536;

export const align16 = (bytes: number): number => Math.ceil(bytes / 16) * 16;

/** An instance of the kernel working in `memory`. */
export function instantiateSketchKernel(memory: WebAssembly.Memory): SketchKernel {
  return new WebAssembly.Instance(kernelModule, { sketch: { memory } }).exports as unknown as SketchKernel;
}
