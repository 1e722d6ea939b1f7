// `agent-gateway token` and `doctor` under `storage: {kind: postgres}` use the shared PostgreSQL, not the data dir's
// SQLite file: a token the CLI creates is valid on a gateway of that database, and revoking it there refuses it.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_SCHEMA_VERSION } from '../../src/store/postgres/index.js';
import { runCli } from '../support/cli.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';

const SECRET = 'cli-pg-secret-0123456789abcdefghijklmnop';

async function ping(gateway: Harness, secret: string): Promise<number> {
  const response = await fetch(`${gateway.url}/rpc`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping', params: {} }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe.skipIf(postgresBinDir === undefined)(
  `cli token and doctor on PostgreSQL${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    let home: string;
    let url: string;
    let gateway: Harness;
    let env: Record<string, string>;
    beforeAll(async () => {
      url = (await server().freshDatabase()).url;
      env = { CLI_PG_SECRET: SECRET, PG_URL: url };
      home = await mkdtemp(join(tmpdir(), 'agent-gateway-cli-pg-'));
      await writeFile(
        join(home, 'config.yaml'),
        'gateway:\n  port: 0\n  tokens:\n    - id: admin\n      secret: "${CLI_PG_SECRET}"\n      scopes: ["*"]\nstorage:\n  kind: postgres\n  url: "${PG_URL}"\n',
      );
      gateway = await startGateway({ storage: { kind: 'postgres', url } });
    }, 60_000);
    afterAll(async () => {
      await gateway?.close();
      await rm(home, { recursive: true, force: true });
    });

    it('creates a token the gateway on the same PostgreSQL accepts, lists it, and revokes it there', async () => {
      const created = await runCli(['token', 'create', '--id', 'pg-bot', '--scopes', 'rpc'], home, env);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const secret = created.stdout.trim().split('\n').at(-1) ?? '';
      expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);
      expect(await ping(gateway, secret)).toBe(200);

      const listed = await runCli(['token', 'list'], home, env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^pg-bot\trpc\tapi\t/m);

      const revoked = await runCli(['token', 'revoke', '--id', 'pg-bot'], home, env);
      expect(revoked).toMatchObject({ code: 0, stdout: "Revoked token 'pg-bot'.\n" });
      expect(await ping(gateway, secret)).toBe(401);
      // Nothing went to the data dir's SQLite file.
      expect(existsSync(join(home, 'gateway.db'))).toBe(false);
    });

    it('doctor checks the PostgreSQL store, and fails the storage line when it cannot be reached', async () => {
      const healthy = await runCli(['doctor'], home, env);
      expect(healthy.stdout).toMatch(
        new RegExp(
          `^ok {3}storage: postgres://127\\.0\\.0\\.1:\\d+/gateway_\\d+ \\(schema version ${POSTGRES_SCHEMA_VERSION}, \\d+ stored token\\(s\\)\\)$`,
          'm',
        ),
      );
      expect(healthy.code).toBe(0);

      const unreachable = await runCli(['doctor'], home, {
        ...env,
        PG_URL: 'postgres://nobody:hunter2@127.0.0.1:1/none',
      });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toMatch(/^fail storage: postgres:\/\/127\.0\.0\.1:1\/none: /m);
      expect(unreachable.stdout).not.toContain('hunter2');
    });
  },
);
