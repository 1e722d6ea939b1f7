// Builds the method registry exactly as the gateway does (a real app over a throwaway data dir) and renders docs/api.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/app.js';
import { resolvePaths, validateConfig } from '../src/config/index.js';
import { createLogger } from '../src/obs/index.js';
import { renderApiReference } from '../src/rpc/index.js';

/** Where the generated reference is checked in. */
export const API_REFERENCE_PATH = fileURLToPath(new URL('../docs/api.md', import.meta.url));

/** A token the throwaway app needs to start; it never listens, so the secret guards nothing. */
const DOCS_TOKEN = { id: 'docs', secret: 'docs-generator-secret-0123456789abcdef', scopes: ['*'] };

export async function generateApiReference(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-docs-'));
  try {
    const app = await createApp({
      config: validateConfig({ gateway: { port: 0, tokens: [DOCS_TOKEN] } }, 'docs:api'),
      paths: resolvePaths({ dataDir }, {}),
      log: createLogger({ level: 'silent' }),
      version: '0.0.0-docs',
      defaultWebDistPath: null,
    });
    try {
      return renderApiReference(app.registry);
    } finally {
      await app.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
