// How the CLI is bundled, for `npm run build` (scripts/bundle.ts) and the tests' bundle alike: one ES module entry,
// `cli.bundle.mjs`, and beside it in `chunks/` the parts the gateway imports only at their first use.
import { dirname, extname, join } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';

/**
 * zod's `z` namespace re-exports every one of its locales (300 KB, a tenth of what a start parses); the gateway's
 * messages are English, which zod configures from its own module, so the bundle keeps that locale alone.
 */
const englishZodMessagesOnly: Plugin = {
  name: 'english-zod-messages-only',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/** What both bundles share: Node 20 ES modules, whitespace-minified, the native and file-reading packages left out. */
const nodeModuleBundle: BuildOptions = {
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Without comments the text is Latin-1, which V8 keeps at one byte a character: a comment's `’` or `—` made it
  // hold the whole source as UTF-16, twice the memory. Names stay, so stack traces still name their functions.
  minifyWhitespace: true,
  // better-sqlite3 is native code; playwright-core finds its own files from __dirname at load, which a bundle lacks;
  // quickjs-emscripten reads its .wasm file from beside its own module.
  external: ['better-sqlite3', 'playwright-core', 'quickjs-emscripten'],
  // CommonJS dependencies call require(); an ES module bundle provides it.
  banner: {
    js: "import { createRequire as gatewayCreateRequire } from 'node:module'; const require = gatewayCreateRequire(import.meta.url);",
  },
  plugins: [englishZodMessagesOnly],
  logLevel: 'warning',
};

/**
 * Bundles `entry` (src/cli.ts or its compiled dist/src/cli.js) into `outdir`/cli.bundle.mjs and `outdir`/chunks/, and
 * the orchestrate script child (the file node starts for each script run, found by
 * src/orchestrate/sandbox/child-entry.ts) into `outdir`/orchestrate-script-child.mjs: one file of its own, so a child
 * reads nothing of the gateway's chunks and the CLI's entry stays as it was.
 */
export async function bundleCli(entry: string, outdir: string): Promise<void> {
  const scriptChild = join(dirname(entry), 'orchestrate', 'sandbox', `script-child${extname(entry)}`);
  await Promise.all([
    build({
      ...nodeModuleBundle,
      entryPoints: { 'cli.bundle': entry },
      outdir,
      // A dynamic import() becomes a chunk of its own, read from disk at that import: a start never parses its code.
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
    }),
    build({ ...nodeModuleBundle, entryPoints: { 'orchestrate-script-child': scriptChild }, outdir }),
  ]);
}
