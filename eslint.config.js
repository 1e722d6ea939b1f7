// Lint rules CI enforces (npm run lint): no floating or misused promises, no unused code, files of at most 350 lines,
// and the import boundaries of DESIGN §4 (a src folder is entered only through its index.ts or the door file named
// after it, as cli.ts and errors.ts; type-only also through a types.ts; store/sqlite and store/postgres only from
// app.ts and cli). Import cycles: .dependency-cruiser.cjs.
import { existsSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));
const srcDir = resolve(root, 'src');

/** `rpc` for src/rpc/methods/x.ts, `` for a file directly in src/, undefined outside src/. */
function topFolder(file) {
  const path = relative(srcDir, file);
  if (path.startsWith('..')) return undefined;
  const parts = path.split(sep);
  return parts.length === 1 ? '' : parts[0];
}

const isIndex = (file) => /(^|[\\/])index\.(ts|js)$/.test(file);
/** A folder's contract types (its types.ts), which any folder may import type-only (DESIGN §4). */
const isTypes = (file) => /(^|[\\/])types\.ts$/.test(file);
/** `import type {…}` or `export type {…}`: erased at build time, so it adds no runtime edge. */
const isTypeOnly = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));
/** 'store/sqlite' or 'store/postgres' for a file of a storage backend, undefined for any other file. */
const backendOf = (file) => {
  const folder = relative(srcDir, file).split(sep).slice(0, 2).join('/');
  return folder === 'store/sqlite' || folder === 'store/postgres' ? folder : undefined;
};
/** A backend is opened by the composition root (app.ts, app-store.ts) and the CLI only; its own files import each other. */
const mayUseBackend = (file, backend) =>
  ['app.ts', 'app-store.ts', 'cli.ts'].includes(relative(srcDir, file)) ||
  topFolder(file) === 'cli' ||
  backendOf(file) === backend;

/** `src/errors.ts` for a folder with a door file named after it, else `src/x/index.ts`. */
const doorOf = (folder) =>
  existsSync(resolve(srcDir, `${folder}.ts`)) ? `src/${folder}.ts` : `src/${folder}/index.ts`;

/** The source file a relative specifier names (`./x.js` is written for `./x.ts`). */
const resolveSpecifier = (importer, specifier) => resolve(dirname(importer), specifier).replace(/\.js$/, '.ts');

const folderBoundaries = {
  meta: {
    type: 'problem',
    docs: {
      description:
        "Imports into another src folder go through that folder's index.ts (or, type-only, its types.ts); store backends only from app.ts and cli.",
    },
    schema: [],
    messages: {
      behindIndex:
        "'{{specifier}}' reaches behind {{door}}; import it from {{door}}, or type-only from a types.ts (DESIGN §4).",
      backendStore:
        "'{{specifier}}' is {{backend}}, which only app.ts and src/cli may import; use the ports in store/ (DESIGN §4).",
    },
  },
  create(context) {
    const importer = context.filename;
    const from = topFolder(importer);
    if (from === undefined) return {};
    function check(node) {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = resolveSpecifier(importer, specifier);
      const to = topFolder(target);
      if (to === undefined || to === '') return;
      const backend = backendOf(target);
      if (backend !== undefined && !mayUseBackend(importer, backend)) {
        context.report({ node: node.source, messageId: 'backendStore', data: { specifier, backend } });
        return;
      }
      // A file named after a folder is that folder's door: src/cli.ts of src/cli/ (DESIGN §4 "cli.ts, cli/"),
      // src/errors.ts of src/errors/. Other folders import the door, never a file behind it.
      const isOwnFolder = to === from || relative(srcDir, importer) === `${to}.ts`;
      if (!isOwnFolder && !isIndex(target) && !(isTypes(target) && isTypeOnly(node)))
        context.report({ node: node.source, messageId: 'behindIndex', data: { specifier, door: doorOf(to) } });
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'web/dist/**', 'eslint.config.js'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, gateway: { rules: { 'folder-boundaries': folderBoundaries } } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      'gateway/folder-boundaries': 'error',
    },
  },
  {
    // STYLE Part 2: a file holds one concern; past 350 lines it holds two.
    files: ['src/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    ignores: ['**/*.generated.ts'],
    rules: { 'max-lines': ['error', { max: 350 }] },
  },
);
