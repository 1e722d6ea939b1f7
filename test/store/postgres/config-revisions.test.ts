// The PostgreSQL ConfigRevisionPort: appends on a stale base or with a secret name already taken are refused whole,
// revisions read back newest first and by sha prefix, and every listener hears each new revision, also after its
// connection was cut.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConfigRevisionPort } from '../../../src/config/index.js';
import { openPostgresConfigRevisions } from '../../../src/store/postgres/index.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../../support/postgres-server.js';

const entry = (base: number, name: string, newSecrets: ReadonlyMap<string, string> = new Map()) => ({
  base,
  document: { agents: { default: { name } } },
  message: `set ${name}`,
  author: 'replica-1',
  newSecrets,
});

async function run(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return (await client.query(sql).finally(() => client.end())).rowCount ?? 0;
}

describe.skipIf(postgresBinDir === undefined)(
  `config revisions on PostgreSQL${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    let url = '';
    let drop = async () => {};
    let ports: ConfigRevisionPort[] = [];
    const open = async () => {
      const port = await openPostgresConfigRevisions({ url, migrate: false });
      ports.push(port);
      return port;
    };

    beforeEach(async () => {
      ({ url, drop } = await server().freshDatabase());
      ports = [];
    });
    afterEach(async () => {
      for (const port of ports) await port.close();
      await drop();
    });

    it('appends revisions in order and refuses one made on a stale base, writing nothing', async () => {
      const port = await open();
      expect(await port.latestNumber()).toBe(0);
      const first = await port.append(entry(0, 'One'));
      const second = await port.append(entry(1, 'Two'));
      expect(await port.append(entry(1, 'Lost'))).toEqual({ ok: false, reason: 'stale' });
      expect(first).toMatchObject({
        ok: true,
        revision: {
          revision: 1,
          document: { agents: { default: { name: 'One' } } },
          message: 'set One',
          author: 'replica-1',
        },
      });
      expect(second).toMatchObject({ ok: true, revision: { revision: 2 } });
      expect((await port.list(10)).map((revision) => revision.message)).toEqual(['set Two', 'set One']);
      expect((await port.latest())?.document).toEqual({ agents: { default: { name: 'Two' } } });
      const sha = second.ok ? second.revision.sha : '';
      expect(sha).toMatch(/^[0-9a-f]{40}$/);
      expect((await port.findBySha(sha.slice(0, 6))).map((revision) => revision.revision)).toEqual([2]);
      expect(await port.get(1)).toMatchObject({ revision: 1, message: 'set One' });
      expect(await port.stats()).toMatchObject({ revisions: 2 });
    });

    it('keeps a secret name for the value it was first given: another value under it makes the append stale', async () => {
      const port = await open();
      expect(await port.append(entry(0, 'One', new Map([['providers.local.apiKey', 'sk-first']])))).toMatchObject({
        ok: true,
      });
      expect(await port.append(entry(1, 'Two', new Map([['providers.local.apiKey', 'sk-second']])))).toEqual({
        ok: false,
        reason: 'stale',
      });
      expect(await port.latestNumber()).toBe(1);
      expect(
        await port.append(
          entry(
            1,
            'Two',
            new Map([
              ['providers.local.apiKey', 'sk-first'],
              ['gateway.webhook.secret', 'whsec'],
            ]),
          ),
        ),
      ).toMatchObject({ ok: true });
      expect(await port.secrets()).toEqual(
        new Map([
          ['providers.local.apiKey', 'sk-first'],
          ['gateway.webhook.secret', 'whsec'],
        ]),
      );
    });

    it('announces each revision to every listener, and listens again after its connection is cut', async () => {
      const writer = await open();
      const reader = await open();
      const heard: number[] = [];
      const stop = await reader.listen((revision) => heard.push(revision));
      await writer.append(entry(0, 'One'));
      await vi.waitFor(() => expect(heard).toEqual([1]), { timeout: 5_000, interval: 20 });

      expect(
        await run(
          url,
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN config_revisions' AND pid <> pg_backend_pid()",
        ),
      ).toBe(1);
      // Appends keep coming until the listener is back; each one it hears after reconnecting is announced to it.
      await vi.waitFor(
        async () => {
          const next = (await writer.latestNumber()) + 1;
          await writer.append(entry(next - 1, `Rev ${next}`));
          expect(heard.at(-1)).toBeGreaterThan(1);
        },
        { timeout: 10_000, interval: 300 },
      );
      await stop();
    });
  },
);
