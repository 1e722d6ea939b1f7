// The SQLite TokenStore: create, find by hash or id, list, revoke and replace a secret hash.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenStore } from '../../src/server/index.js';
import { createSqliteTokenStore, openDatabase, type SqliteDatabase } from '../../src/store/index.js';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

describe('sqlite token store', () => {
  let db: SqliteDatabase;
  let store: TokenStore;
  beforeEach(() => {
    db = openDatabase({ path: ':memory:' });
    store = createSqliteTokenStore(db);
  });
  afterEach(() => {
    db.close();
  });

  it('finds a created token by its secret hash and by its id', () => {
    const token = { id: 'bob', secretHash: HASH_A, scopes: ['rpc' as const], createdAt: '2026-01-01T00:00:00.000Z' };
    store.create(token);
    expect(store.findBySecretHash(HASH_A)).toEqual(token);
    expect(store.findById('bob')).toEqual(token);
    expect(store.findBySecretHash(HASH_B)).toBeUndefined();
    expect(store.findById('alice')).toBeUndefined();
  });

  it('lists active tokens by creation time', () => {
    store.create({ id: 'late', secretHash: HASH_A, scopes: [], createdAt: '2026-01-02T00:00:00.000Z' });
    store.create({ id: 'early', secretHash: HASH_B, scopes: ['admin', 'rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
    expect(store.list().map((token) => [token.id, token.scopes])).toEqual([
      ['early', ['admin', 'rpc']],
      ['late', []],
    ]);
  });

  it('revokes a token so that neither its hash nor its id finds it, and reports unknown ids', () => {
    store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
    expect(store.revoke('bob')).toBe(true);
    expect(store.findBySecretHash(HASH_A)).toBeUndefined();
    expect(store.findById('bob')).toBeUndefined();
    expect(store.list()).toEqual([]);
    expect(store.revoke('bob')).toBe(false);
  });

  it('lets a revoked id be issued again', () => {
    store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
    store.revoke('bob');
    store.create({ id: 'bob', secretHash: HASH_B, scopes: ['admin'], createdAt: '2026-01-02T00:00:00.000Z' });
    expect(store.findById('bob')?.scopes).toEqual(['admin']);
  });

  it('replaces the secret hash: the old hash no longer finds the token, the new one does', () => {
    store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
    expect(store.replaceSecretHash('bob', HASH_B)).toBe(true);
    expect(store.findBySecretHash(HASH_A)).toBeUndefined();
    expect(store.findBySecretHash(HASH_B)?.id).toBe('bob');
    expect(store.replaceSecretHash('nobody', HASH_A)).toBe(false);
  });

  it('refuses a second token with the same id or the same hash', () => {
    store.create({ id: 'bob', secretHash: HASH_A, scopes: ['rpc'], createdAt: '2026-01-01T00:00:00.000Z' });
    expect(() => store.create({ id: 'bob', secretHash: HASH_B, scopes: [], createdAt: '2026-01-01T00:00:00.000Z' })).toThrow();
    expect(() => store.create({ id: 'eve', secretHash: HASH_A, scopes: [], createdAt: '2026-01-01T00:00:00.000Z' })).toThrow();
  });
});
