// How the CLI is bundled, for `npm run build` (scripts/bundle.ts) and the tests' bundle alike: one ES module entry,
// `cli.bundle.mjs`, and beside it in `chunks/` the parts the gateway imports only at their first use.
import { dirname } from 'node:path';
import { build, type Plugin } from 'esbuild';

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

/** Bundles `entry` (src/cli.ts or its compiled dist/src/cli.js) into `outdir`/cli.bundle.mjs and `outdir`/chunks/. */
export async function bundleCli(entry: string, outdir: string): Promise<void> {
  await build({
    entryPoints: { 'cli.bundle': entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    // A dynamic import() becomes a chunk of its own, read from disk at that import: a start never parses its code.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Without comments the text is Latin-1, which V8 keeps at one byte a character: a comment's `’` or `—` made it
    // hold the whole source as UTF-16, twice the memory. Names stay, so stack traces still name their functions.
    minifyWhitespace: true,
    // better-sqlite3 is native code; playwright-core finds its own files from __dirname at load, which a bundle lacks.
    external: ['better-sqlite3', 'playwright-core'],
    // CommonJS dependencies call require(); an ES module bundle provides it.
    banner: {
      js: "import { createRequire as gatewayCreateRequire } from 'node:module'; const require = gatewayCreateRequire(import.meta.url);",
    },
    plugins: [englishZodMessagesOnly],
    logLevel: 'warning',
  });
}
