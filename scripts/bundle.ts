// `npm run build` step 2: bundles the compiled CLI and everything it imports into one ES module file, so a start
// reads and compiles one file instead of resolving hundreds of modules (better-sqlite3 and playwright-core stay external).
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/src/cli.js'],
  outfile: 'dist/src/cli.bundle.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // better-sqlite3 is native code; playwright-core finds its own files from __dirname at load, which a bundle lacks.
  external: ['better-sqlite3', 'playwright-core'],
  // CommonJS dependencies call require(); an ES module bundle provides it.
  banner: {
    js: "import { createRequire as gatewayCreateRequire } from 'node:module'; const require = gatewayCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
