// Where the script child's entry file is: tsc's script-child.js beside this module (dist/src), the bundle's
// orchestrate-script-child.mjs beside cli.bundle.mjs, or, run from the TypeScript sources (tests, `npm run dev`), a
// bundle of script-child.ts made once per gateway process.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Node's own heap in the child: QuickJS's memory is a wasm buffer outside it, so the heap holds little more than
 * node, zod and the protocol's strings.
 */
const CHILD_HEAP_MB = 64;

let cached: string[] | undefined;

/** The arguments after the node executable that start a script child. Throws when no entry file can be found. */
export function childArguments(): string[] {
  cached ??= argumentsFor(locateChild(import.meta.url));
  return cached;
}

/**
 * Node's arguments for the child entry `entry`: a small heap and, where this node has its permission model, every
 * grant closed but reading the entry's folder and the node_modules holding QuickJS. QuickJS is the sandbox; this is
 * a second wall, so the child process itself can neither write files, spawn processes nor start workers.
 */
export function argumentsFor(entry: string): string[] {
  const heap = `--max-old-space-size=${CHILD_HEAP_MB}`;
  const flags = process.allowedNodeEnvironmentFlags;
  const permission = flags.has('--permission')
    ? '--permission'
    : flags.has('--experimental-permission')
      ? '--experimental-permission'
      : undefined;
  if (permission === undefined) return [heap, entry];
  const quickjs = createRequire(import.meta.url).resolve('quickjs-emscripten');
  const modules = quickjs.slice(0, quickjs.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  return [
    heap,
    permission,
    `--allow-fs-read=${dirname(entry)}${sep}*`,
    `--allow-fs-read=${modules}${sep}*`,
    '--no-warnings',
    entry,
  ];
}

/** The child's entry file for this module at `moduleUrl` (a file URL), as tsc, the bundler or the sources place it. */
export function locateChild(moduleUrl: string): string {
  const compiled = fileURLToPath(new URL('./script-child.js', moduleUrl));
  if (existsSync(compiled)) return compiled;
  // In the CLI bundle this module is cli.bundle.mjs itself, or one of its chunks/ when imported on first use.
  for (const relative of ['./orchestrate-script-child.mjs', '../orchestrate-script-child.mjs']) {
    const bundled = fileURLToPath(new URL(relative, moduleUrl));
    if (existsSync(bundled)) return bundled;
  }
  const source = fileURLToPath(new URL('./script-child.ts', moduleUrl));
  if (existsSync(source)) return bundleSource(source, moduleUrl);
  throw new Error('the orchestrate script child entry file was not found beside the gateway');
}

/**
 * Bundles script-child.ts with esbuild (a dev dependency, present wherever the sources run): a child started under a
 * TypeScript loader spent ~0.5 s of CPU compiling before each run. The file goes under node_modules/.cache, where
 * quickjs-emscripten (left out: it reads its .wasm beside itself) resolves. It is named by its content's hash, so
 * processes running the same sources share one file and none has to remove it (a killed test worker never could).
 */
function bundleSource(source: string, moduleUrl: string): string {
  const esbuild: typeof import('esbuild') = createRequire(moduleUrl)('esbuild');
  const built = esbuild.buildSync({
    entryPoints: [source],
    write: false,
    outfile: 'orchestrate-script-child.mjs',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['quickjs-emscripten'],
    logLevel: 'warning',
  });
  const code = built.outputFiles[0]?.contents;
  if (code === undefined) throw new Error('esbuild produced no orchestrate script child');
  const cacheDir = fileURLToPath(new URL('../../../node_modules/.cache/agent-gateway/', moduleUrl));
  const outfile = join(
    cacheDir,
    `orchestrate-script-child-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`,
  );
  if (!existsSync(outfile)) {
    mkdirSync(cacheDir, { recursive: true });
    // Written aside and renamed: another process may be reading the same name.
    const partial = `${outfile}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, outfile);
  }
  return outfile;
}
