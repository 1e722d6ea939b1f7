// The token service: issuing, listing, revoking and rotating API tokens; config tokens are read-only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors.js';
import { createTokenService, type TokenService } from '../../src/server/index.js';
import { createSqliteTokenPort, openDatabase, type SqliteDatabase } from '../../src/store/sqlite/index.js';

const NOW = Date.parse('2026-03-04T05:06:07.000Z');

async function errorOf(action: () => unknown): Promise<GatewayError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('token service', () => {
  let db: SqliteDatabase;
  let tokens: TokenService;
  beforeEach(() => {
    db = openDatabase({ path: ':memory:' });
    tokens = createTokenService({
      store: createSqliteTokenPort(db),
      configTokens: [{ id: 'admin', secret: 'admin-secret-0123456789abcdefghijklmnop', scopes: ['*'] }],
      now: () => NOW,
      configLoadedAt: '2026-01-01T00:00:00.000Z',
    });
  });
  afterEach(() => {
    db.close();
  });

  it('lists config tokens and issued tokens with their source and no secret', async () => {
    await tokens.create('bob', ['rpc']);
    const list = await tokens.list();
    expect(list).toEqual([
      { id: 'admin', scopes: ['*'], createdAt: '2026-01-01T00:00:00.000Z', source: 'config' },
      { id: 'bob', scopes: ['rpc'], createdAt: '2026-03-04T05:06:07.000Z', source: 'api' },
    ]);
    expect(JSON.stringify(list)).not.toContain('secret');
  });

  it('refuses to issue an id that exists in the config or the store (conflict)', async () => {
    await tokens.create('bob', ['rpc']);
    expect(await errorOf(() => tokens.create('bob', ['rpc']))).toMatchObject({
      kind: 'conflict',
      message: "Token 'bob' already exists",
    });
    expect(await errorOf(() => tokens.create('admin', ['rpc']))).toMatchObject({ kind: 'conflict' });
  });

  it('refuses to issue a revoked id again (conflict naming it), so the new token cannot take over what the old one owned', async () => {
    await tokens.create('bob', ['rpc']);
    await tokens.revoke('bob');
    const again = await errorOf(() => tokens.create('bob', ['admin']));
    expect(again).toMatchObject({ kind: 'conflict', details: { param: 'id' } });
    expect(again.message).toContain("Token 'bob'");
    expect(again.message).toContain('never issued again');
    expect((await tokens.list()).map((token) => token.id)).toEqual(['admin']);
    expect(await errorOf(() => tokens.rotate('bob'))).toMatchObject({ kind: 'not_found' });
    expect(await errorOf(() => tokens.revoke('bob'))).toMatchObject({ kind: 'not_found' });
  });

  it('refuses to revoke or rotate a config token (conflict), naming the config file', async () => {
    const revoke = await errorOf(() => tokens.revoke('admin'));
    expect(revoke.kind).toBe('conflict');
    expect(revoke.message).toBe("Token 'admin' is defined in the config file; remove it there");
    expect(revoke.details.param).toBe('id');
    expect(await errorOf(() => tokens.rotate('admin'))).toMatchObject({ kind: 'conflict' });
    expect((await tokens.list()).map((token) => token.id)).toContain('admin');
  });

  it('answers not_found for revoking or rotating an unknown id', async () => {
    expect(await errorOf(() => tokens.revoke('ghost'))).toMatchObject({
      kind: 'not_found',
      message: "Token 'ghost' not found",
    });
    expect(await errorOf(() => tokens.rotate('ghost'))).toMatchObject({ kind: 'not_found' });
  });

  it('removes a revoked token from the list', async () => {
    await tokens.create('bob', ['rpc']);
    await tokens.revoke('bob');
    expect((await tokens.list()).map((token) => token.id)).toEqual(['admin']);
  });

  it('refuses a malformed id with invalid_params naming the id', async () => {
    expect(await errorOf(() => tokens.create('', ['rpc']))).toMatchObject({
      kind: 'invalid_params',
      details: { param: 'id' },
    });
    expect(await errorOf(() => tokens.create('has space', ['rpc']))).toMatchObject({ kind: 'invalid_params' });
  });

  it('announces every retired secret (revoke and rotate) so open sockets can be closed', async () => {
    const retired: string[] = [];
    tokens.onSecretRetired((id) => retired.push(id));
    await tokens.create('bob', ['rpc']);
    await tokens.rotate('bob');
    await tokens.revoke('bob');
    expect(retired).toEqual(['bob', 'bob']);
  });
});
