// The TokenPort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenPort } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const REVOKED_AT = '2026-01-03T00:00:00.000Z';

export function tokenPortCases(backend: string, open: () => Promise<PortFixture<TokenPort>>): void {
  describe(`TokenPort conformance (${backend})`, () => {
    let fixture: PortFixture<TokenPort>;
    let store: TokenPort;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });
    it('finds a created token by its secret hash and by its id', async () => {
      const token = { id: 'bob', secretHash: HASH_A, scopes: ['rpc' as const], createdAt: '2026-01-01T00:00:00.000Z' };
      await store.create(token);
      expect(await store.findBySecretHash(HASH_A)).toEqual(token);
      expect(await store.findById('bob')).toEqual(token);
      expect(await store.findBySecretHash(HASH_B)).toBeUndefined();
      expect(await store.findById('alice')).toBeUndefined();
    });

    it('lists active tokens by creation time', async () => {
      await store.create({ id: 'late', secretHash: HASH_A, scopes: [], createdAt: '2026-01-02T00:00:00.000Z' });
      await store.create({
        id: 'early',
        secretHash: HASH_B,
        scopes: ['admin', 'rpc'],
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      expect((await store.list()).map((token) => [token.id, token.scopes])).toEqual([
        ['early', ['admin', 'rpc']],
        ['late', []],
      ]);
    });

    it('revokes a token so that neither its hash nor its id finds it, and reports unknown ids', async () => {
      await store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
      expect(await store.revoke('bob', REVOKED_AT)).toBe(true);
      expect(await store.findBySecretHash(HASH_A)).toBeUndefined();
      expect(await store.findById('bob')).toBeUndefined();
      expect(await store.list()).toEqual([]);
      expect(await store.revoke('bob', REVOKED_AT)).toBe(false);
    });

    it('never issues a revoked id again: it owns what its token made, so a second create is a conflict naming it', async () => {
      await store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
      expect(await store.revoke('bob', REVOKED_AT)).toBe(true);
      await expect(
        store.create({ id: 'bob', secretHash: HASH_B, scopes: ['admin'], createdAt: '2026-01-02T00:00:00.000Z' }),
      ).rejects.toMatchObject({
        kind: 'conflict',
        message: expect.stringContaining("'bob'"),
        details: { param: 'id' },
      });
      expect(await store.findById('bob')).toBeUndefined();
      expect(await store.findBySecretHash(HASH_B)).toBeUndefined();
      expect(await store.list()).toEqual([]);
      expect(await store.replaceSecretHash('bob', HASH_B)).toBe(false);
    });

    it('replaces the secret hash: the old hash no longer finds the token, the new one does', async () => {
      await store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
      expect(await store.replaceSecretHash('bob', HASH_B)).toBe(true);
      expect(await store.findBySecretHash(HASH_A)).toBeUndefined();
      expect((await store.findBySecretHash(HASH_B))?.id).toBe('bob');
      expect(await store.replaceSecretHash('nobody', HASH_A)).toBe(false);
    });

    it('refuses a second token with the same id or the same hash', async () => {
      await store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
      await expect(
        store.create({ id: 'bob', secretHash: HASH_B, scopes: [], createdAt: '2026-01-01T00:00:00.000Z' }),
      ).rejects.toMatchObject({ kind: 'conflict' });
      await expect(
        store.create({ id: 'eve', secretHash: HASH_A, scopes: [], createdAt: '2026-01-01T00:00:00.000Z' }),
      ).rejects.toThrow();
    });
  });
}
