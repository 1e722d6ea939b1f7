// Token authentication: config tokens and stored tokens, stored by hash only, revocation and rotation at once.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bearerSecret,
  createAuthenticator,
  createTokenService,
  hashSecret,
  type Authenticator,
  type TokenService,
} from '../../src/server/index.js';
import { createSqliteTokenPort, openDatabase, type SqliteDatabase } from '../../src/store/sqlite/index.js';

const ADMIN_SECRET = 'admin-secret-0123456789abcdefghijklmnop';
const RPC_SECRET = 'rpc-secret-0123456789abcdefghijklmnopqrs';

describe('authenticator', () => {
  let dir: string;
  let db: SqliteDatabase;
  let authenticator: Authenticator;
  let tokens: TokenService;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-auth-'));
    db = openDatabase({ path: join(dir, 'gateway.db') });
    const store = createSqliteTokenPort(db);
    const configTokens = [
      { id: 'admin', secret: ADMIN_SECRET, scopes: ['*' as const] },
      { id: 'client', secret: RPC_SECRET, scopes: ['rpc' as const] },
    ];
    authenticator = createAuthenticator({ configTokens, store });
    tokens = createTokenService({
      store,
      configTokens,
      now: () => Date.parse('2026-01-01T00:00:00Z'),
      configLoadedAt: '2026-01-01T00:00:00.000Z',
    });
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds config tokens by their secret', async () => {
    expect(await authenticator.authenticate(ADMIN_SECRET)).toEqual({ clientId: 'admin', scopes: ['*'] });
    expect(await authenticator.authenticate(RPC_SECRET)).toEqual({ clientId: 'client', scopes: ['rpc'] });
  });

  it('finds nobody for a missing, empty, unknown or nearly right secret', async () => {
    expect(await authenticator.authenticate(undefined)).toBeUndefined();
    expect(await authenticator.authenticate('')).toBeUndefined();
    expect(await authenticator.authenticate('not-a-token')).toBeUndefined();
    expect(await authenticator.authenticate(`${ADMIN_SECRET}x`)).toBeUndefined();
    expect(await authenticator.authenticate(ADMIN_SECRET.slice(0, -1))).toBeUndefined();
    expect(await authenticator.authenticate(ADMIN_SECRET.toUpperCase())).toBeUndefined();
  });

  it('finds a stored token by its secret', async () => {
    const issued = await tokens.create('bob', ['rpc']);
    expect(issued.secret).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(await authenticator.authenticate(issued.secret)).toEqual({ clientId: 'bob', scopes: ['rpc'] });
  });

  it('keeps only the SHA-256 hash of a stored secret, never the secret itself', async () => {
    const issued = await tokens.create('bob', ['rpc']);
    const row = db.prepare('SELECT secret_hash FROM api_tokens WHERE id = ?').pluck().get('bob');
    expect(row).toBe(hashSecret(issued.secret));
    expect(hashSecret(issued.secret)).toMatch(/^[0-9a-f]{64}$/);
    // Every file of the database (main file and WAL) is searched for the secret.
    db.pragma('wal_checkpoint(PASSIVE)');
    const files = await readdir(dir);
    expect(files).toContain('gateway.db');
    for (const file of files) {
      const bytes = await readFile(join(dir, file));
      expect(bytes.includes(Buffer.from(issued.secret))).toBe(false);
    }
    const all = Buffer.concat(await Promise.all(files.map((file) => readFile(join(dir, file)))));
    expect(all.includes(Buffer.from(hashSecret(issued.secret)))).toBe(true);
  });

  it('stops accepting a revoked token at once', async () => {
    const issued = await tokens.create('bob', ['rpc']);
    expect(await tokens.revoke('bob')).toEqual({ id: 'bob', revoked: true });
    expect(await authenticator.authenticate(issued.secret)).toBeUndefined();
  });

  it('after rotation refuses the old secret and accepts the new one with the same id and scopes', async () => {
    const issued = await tokens.create('bob', ['rpc', 'admin']);
    const rotated = await tokens.rotate('bob');
    expect(rotated.id).toBe('bob');
    expect(rotated.scopes).toEqual(['rpc', 'admin']);
    expect(rotated.secret).not.toBe(issued.secret);
    expect(await authenticator.authenticate(issued.secret)).toBeUndefined();
    expect(await authenticator.authenticate(rotated.secret)).toEqual({ clientId: 'bob', scopes: ['rpc', 'admin'] });
  });
});

describe('bearer header parsing', () => {
  it('reads the secret of a Bearer header, any case, with trailing spaces', () => {
    expect(bearerSecret('Bearer abc')).toBe('abc');
    expect(bearerSecret('bearer abc')).toBe('abc');
    expect(bearerSecret('Bearer \tabc  ')).toBe('abc');
  });

  it('reads nothing from other schemes or malformed values', () => {
    expect(bearerSecret(undefined)).toBeUndefined();
    expect(bearerSecret('Basic abc')).toBeUndefined();
    expect(bearerSecret('Bearer')).toBeUndefined();
    expect(bearerSecret('Bearer a b')).toBeUndefined();
    expect(bearerSecret('abc')).toBeUndefined();
  });
});
