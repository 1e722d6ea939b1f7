// `agent-gateway token create|list|revoke`: API tokens managed in the data dir's store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConfigFile } from '../../src/config/index.js';
import { createSqliteTokenPort, openDatabase } from '../../src/store/sqlite/index.js';
import { runCli } from '../support/cli.js';

// The two tests use separate ids, so their CLI processes may run side by side.
describe.concurrent('cli token', () => {
  let home: string;
  let adminSecret: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-cli-token-'));
    adminSecret = (await ensureConfigFile(join(home, 'config.yaml'))).adminSecret ?? '';
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('creates, lists (without secrets) and revokes a token', async () => {
    const created = await runCli(['token', 'create', '--id', 'bob', '--scopes', 'rpc'], home);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("Created token 'bob' with scopes [rpc]. The secret is shown only this once:");
    const secret = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);

    const listed = await runCli(['token', 'list'], home);
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t').slice(0, 3));
    expect(rows).toEqual([
      ['admin', '*', 'config'],
      ['bob', 'rpc', 'api'],
    ]);
    expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).not.toContain(adminSecret);

    const revoked = await runCli(['token', 'revoke', '--id', 'bob'], home);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe("Revoked token 'bob'.\n");

    const db = openDatabase({ path: join(home, 'gateway.db') });
    try {
      expect(await createSqliteTokenPort(db).findById('bob')).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('refuses to revoke a config token, exiting 1 with the reason', async () => {
    const result = await runCli(['token', 'revoke', '--id', 'admin'], home);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Token 'admin' is defined in the config file; remove it there");
  });
});

// Apart from the concurrent ones above, so its three CLI processes do not slow theirs past the test timeout.
describe('cli token ids', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-cli-token-ids-'));
    await ensureConfigFile(join(home, 'config.yaml'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('refuses to create a revoked id again, exiting 1 with the reason', async () => {
    expect((await runCli(['token', 'create', '--id', 'dave'], home)).code).toBe(0);
    expect((await runCli(['token', 'revoke', '--id', 'dave'], home)).code).toBe(0);
    const again = await runCli(['token', 'create', '--id', 'dave'], home);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("Token 'dave' was issued before");
  }, 60_000);
});
