// `npm run build` step 2: bundles the compiled CLI and everything it imports into one ES module entry (and the chunks it
// imports on first use), so a start reads and compiles a few files instead of resolving hundreds of modules.
import { rm } from 'node:fs/promises';
import { bundleCli } from './lib/cli-bundle.js';

// Chunk names carry a content hash: the last build's chunks would otherwise stay beside the new ones.
await rm('dist/src/chunks', { recursive: true, force: true });
await bundleCli('dist/src/cli.js', 'dist/src');
