// Where the script child's entry file is and how node starts it: tsc's script-child.js beside this module (dist/src),
// the TypeScript source under the tsx loader (tests and `npm run dev`), or the bundle's orchestrate-script-child.mjs.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Node's own heap in the child: QuickJS's memory is a wasm buffer outside it, so the heap holds little more than
 * node, zod and the protocol's strings.
 */
const CHILD_HEAP_MB = 64;

let cached: string[] | undefined;

/** The arguments after the node executable that start a script child. Throws when no entry file can be found. */
export function childArguments(): string[] {
  cached ??= locate();
  return cached;
}

function locate(): string[] {
  const heap = `--max-old-space-size=${CHILD_HEAP_MB}`;
  const compiled = fileURLToPath(new URL('./script-child.js', import.meta.url));
  if (existsSync(compiled)) return [heap, compiled];
  const source = fileURLToPath(new URL('./script-child.ts', import.meta.url));
  if (existsSync(source)) {
    // The child's cwd is `/`, where `--import tsx` would not resolve: hand node the loader's file URL.
    const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    return [heap, '--import', loader, source];
  }
  // In the CLI bundle this module is cli.bundle.mjs itself, or one of its chunks/ when imported on first use.
  for (const relative of ['./orchestrate-script-child.mjs', '../orchestrate-script-child.mjs']) {
    const bundled = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(bundled)) return [heap, bundled];
  }
  throw new Error('the orchestrate script child entry file was not found beside the gateway');
}
