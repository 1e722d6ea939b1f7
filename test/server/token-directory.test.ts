// The token directory: config tokens from the live config, API tokens from a copy of the store's list read again only
// when an id is missing from it and the copy is older than TOKEN_LIST_REFRESH_MS.
import { describe, expect, it } from 'vitest';
import type { TokenConfig } from '../../src/config/index.js';
import { createTokenDirectory, TOKEN_LIST_REFRESH_MS } from '../../src/server/index.js';
import { createSqliteTokenPort, openDatabase } from '../../src/store/sqlite/index.js';

const SECRET = 'secret-0123456789abcdefghijklmnopqrstuv';

describe('token directory', () => {
  it('answers config tokens from the live config, with their admin scope and tenants', async () => {
    let tokens: TokenConfig[] = [
      { id: 'shop', secret: SECRET, scopes: ['rpc'], tenants: ['acme'] },
      { id: 'ops', secret: SECRET, scopes: ['*'] },
    ];
    const directory = createTokenDirectory({
      configTokens: () => tokens,
      store: { list: async () => [] },
      now: () => 0,
    });
    expect(await directory.grantOf('shop')).toEqual({ isAdmin: false, tenants: ['acme'] });
    expect(await directory.grantOf('ops')).toEqual({ isAdmin: true, tenants: [] });
    expect(directory.tenantsOf('shop')).toEqual(['acme']);
    tokens = [];
    expect(await directory.grantOf('shop')).toBeUndefined();
    expect(directory.tenantsOf('shop')).toEqual([]);
  });

  it('finds an API token issued after its copy of the list was read, once the copy is old enough, and reads no store meanwhile', async () => {
    const port = createSqliteTokenPort(openDatabase({ path: ':memory:' }));
    let reads = 0;
    let clock = 1_000;
    const store = {
      list: async () => {
        reads += 1;
        return port.list();
      },
    };
    const directory = createTokenDirectory({ configTokens: () => [], store, now: () => clock });
    await port.create({
      id: 'early',
      secretHash: 'a'.repeat(64),
      scopes: ['admin'],
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await directory.grantOf('early')).toEqual({ isAdmin: true, tenants: [] });
    expect(reads).toBe(1);
    await port.create({
      id: 'late',
      secretHash: 'b'.repeat(64),
      scopes: ['rpc'],
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await directory.grantOf('late')).toBeUndefined();
    expect(await directory.grantOf('alice')).toBeUndefined();
    expect(await directory.grantOf('early')).toBeDefined();
    expect(reads).toBe(1);
    clock += TOKEN_LIST_REFRESH_MS;
    expect(await directory.grantOf('late')).toEqual({ isAdmin: false, tenants: [] });
    expect(reads).toBe(2);
  });
});
