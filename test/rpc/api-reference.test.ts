// docs/api.md is generated from the registry: it lists every method with scope and policy, and it is never stale.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { API_REFERENCE_PATH, generateApiReference } from '../../scripts/api-reference.js';
import { createRegistry, defineMethod, noParams, renderApiReference } from '../../src/rpc/index.js';
import { z } from 'zod';

describe('API reference', () => {
  it('docs/api.md matches the registry (run `npm run docs:api` after changing a method)', async () => {
    const generated = await generateApiReference();
    const checkedIn = await readFile(API_REFERENCE_PATH, 'utf8').catch(() => '');
    expect(checkedIn === generated, 'docs/api.md is stale: run `npm run docs:api` and commit the result').toBe(true);
  });

  it('renders each method with its scope, policy, summary and params schema', () => {
    const registry = createRegistry([
      defineMethod({
        name: 'demo.ping',
        scope: 'rpc',
        summary: 'Answers | pong.',
        params: noParams,
        handler: () => null,
      }),
      defineMethod({
        name: 'demo.upload',
        scope: 'admin',
        summary: 'Stores a blob.',
        params: z.strictObject({ data: z.string() }),
        policy: { maxParamsBytes: 1024, requiresApproval: true },
        handler: () => null,
      }),
    ]);
    const text = renderApiReference(registry);
    expect(text).toContain('| [`demo.ping`](#demoping) | rpc | – | Answers \\| pong. |');
    expect(text).toContain(
      '| [`demo.upload`](#demoupload) | admin | audit, maxParamsBytes 1024, requiresApproval | Stores a blob. |',
    );
    expect(text).toContain(
      '### demo.upload\n\nStores a blob.\n\n- Scope: `admin`\n- Policy: audit, maxParamsBytes 1024, requiresApproval',
    );
    expect(text).toContain('"required": [\n    "data"\n  ]');
  });
});
