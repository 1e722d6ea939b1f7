// docs/config-reference.md is generated from the config schema and never stale; it lists every key a config can hold.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CONFIG_REFERENCE_PATH, collectConfigKeys, generateConfigReference } from '../../scripts/config-reference.js';

describe('config reference', () => {
  it('docs/config-reference.md matches the schema (run `npm run docs:config` after changing a config key)', async () => {
    const checkedIn = await readFile(CONFIG_REFERENCE_PATH, 'utf8').catch(() => '');
    expect(
      checkedIn === generateConfigReference(),
      'docs/config-reference.md is stale: run `npm run docs:config`',
    ).toBe(true);
  });

  it('names nested, listed and named keys with their defaults, and every variant of a union', () => {
    const keys = new Map(collectConfigKeys().map((key) => [key.path, key]));
    expect(keys.get('gateway.port')).toMatchObject({ type: 'integer', default: '`4766`' });
    expect(keys.get('gateway.tokens[].secret')?.bounds).toBe('length ≥ 32');
    expect(keys.get('agents.<name>.maxSteps')?.default).toBe('`8`');
    expect(keys.get('storage.kind')?.type).toBe('"sqlite" \\| "postgres"');
  });
});
