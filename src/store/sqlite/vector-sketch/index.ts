// The SQLite memory's vector engine (README.md): stored vectors, the exact lane, and the sketch lane with its
// WebAssembly kernel. The only file the rest of store/sqlite imports.
export { createExactVectorLane } from './exact-lane.js';
export { createSketchVectorLane } from './sketch-lane.js';
export {
  blobValues,
  createVectorStore,
  vectorBlob,
  type KnownEntry,
  type VectorLane,
  type VectorStore,
} from './vectors.js';
