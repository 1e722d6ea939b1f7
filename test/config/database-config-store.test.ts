// The ConfigStore under storage: postgres, on a real throwaway PostgreSQL: the file seeds revision 1 (secrets kept out
// of every revision), a change on one store is live on another at once (announced) or at the next poll (announcement
// lost), concurrent writers both land in history in order, and history, diff and rollback read the revisions.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabaseConfigStore, type ConfigChange, type ConfigStore } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { openPostgresConfigRevisions } from '../../src/store/postgres/index.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';

const ADMIN_SECRET = 'admin-secret-0123456789abcdefghijklmnop';
const OTHER_SECRET = 'other-secret-0123456789abcdefghijklmnop';

const fileText = (url: string, agentName: string, secret = ADMIN_SECRET) => `gateway:
  port: 4766
  tokens:
    - id: admin
      secret: ${secret}
      scopes: ["*"]
providers:
  local: { type: openai-compatible, baseUrl: http://127.0.0.1:11434/v1, models: [{ id: small }] }
agents:
  default: { name: ${agentName}, provider: local, model: small }
storage: { kind: postgres, url: "${url}" }
`;

/** Resolves once `check` passes, retrying every 20 ms; fails with the last assertion error after `timeoutMs`. */
async function eventually(check: () => void | Promise<void>, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(postgresBinDir === undefined)(
  `database config store${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    let url = '';
    let drop = async () => {};
    let dirs: string[] = [];
    let stores: ConfigStore[] = [];

    beforeEach(async () => {
      ({ url, drop } = await server().freshDatabase());
      dirs = [];
      stores = [];
    });
    afterEach(async () => {
      for (const store of stores) await store.close();
      await drop();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    });

    /** A replica's config store: its own data dir and config file, on the shared database. */
    async function replica(
      agentName: string,
      options: { pollMs?: number; secret?: string; secretsYaml?: string; env?: NodeJS.ProcessEnv } = {},
    ): Promise<ConfigStore> {
      const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-dbconfig-'));
      dirs.push(dir);
      const configPath = join(dir, 'config.yaml');
      await writeFile(configPath, fileText(url, agentName, options.secret), { mode: 0o600 });
      if (options.secretsYaml !== undefined)
        await writeFile(join(dir, 'secrets.yaml'), options.secretsYaml, { mode: 0o600 });
      const log = createLogger({ level: 'silent' });
      const revisions = await openPostgresConfigRevisions({ url, migrate: false, log });
      const store = await createDatabaseConfigStore({
        revisions,
        configPath,
        env: options.env ?? {},
        log,
        author: `replica-${agentName}`,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      }).catch(async (error: unknown) => {
        await revisions.close();
        throw error;
      });
      stores.push(store);
      return store;
    }

    it('seeds revision 1 from the first file, with its secret kept out of the revision; later replicas run the database config', async () => {
      const a = await replica('Seeded');
      const b = await replica('Ignored', { secret: OTHER_SECRET });
      for (const store of [a, b]) {
        expect(store.get().agents.default?.name).toBe('Seeded');
        expect(store.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
      }
      const rows = await query<{ revision: number; document: unknown; message: string; author: string }>(
        url,
        'SELECT revision, document, message, author FROM config_revisions',
      );
      expect(rows).toEqual([
        { revision: 1, document: expect.anything(), message: 'initial config', author: 'replica-Seeded' },
      ]);
      const stored = JSON.stringify(rows[0]?.document);
      expect(stored).not.toContain(ADMIN_SECRET);
      expect(stored).toContain('${secret:gateway.tokens.admin.secret}');
      // Each replica keeps the storage section of its own file; revisions never hold it.
      expect(stored).not.toContain('storage');
      expect(b.raw('storage')).toEqual({ kind: 'postgres', url });
    });

    it('applies a change made on one replica on the other as soon as it is announced', async () => {
      const a = await replica('Assistant');
      // No poll within the test's time: only the announcement can carry the change.
      const b = await replica('Assistant', { pollMs: 600_000 });
      const seen: ConfigChange[] = [];
      b.onChange((change) => seen.push(change));
      const result = await a.patch({ agents: { default: { name: 'Renamed' } } });
      expect(result.sections).toEqual(['agents']);
      await eventually(() => expect(b.get().agents.default?.name).toBe('Renamed'));
      expect(seen).toEqual([
        expect.objectContaining({ sections: ['agents'], sha: result.sha, message: 'config.patch', isRemote: true }),
      ]);
      expect(seen[0]?.previous.agents.default?.name).toBe('Assistant');
    });

    it('applies a revision whose announcement was lost at the next poll', async () => {
      const b = await replica('Assistant', { pollMs: 200 });
      const [head] = await query<{ sha: string; document: Record<string, unknown> }>(
        url,
        'SELECT sha, document FROM config_revisions ORDER BY revision DESC LIMIT 1',
      );
      const document = { ...head?.document, gateway: { ...(head?.document.gateway as object), maxBatchSize: 7 } };
      // Written without NOTIFY, as if the announcement never arrived.
      await query(
        url,
        'INSERT INTO config_revisions (revision, sha, document, message, author) VALUES (2, $1, $2, $3, $4)',
        ['ab'.repeat(20), JSON.stringify(document), 'hand-written', 'elsewhere'],
      );
      await eventually(() => expect(b.get().gateway.maxBatchSize).toBe(7));
    });

    it('keeps every change of two replicas writing at once, in one history with consecutive revisions', async () => {
      const a = await replica('Assistant', { pollMs: 600_000 });
      const b = await replica('Assistant', { pollMs: 600_000 });
      const writes = [1, 2, 3].flatMap((index) => [
        a.set('agents', `a${index}`, { name: `A${index}`, provider: 'local', model: 'small' }),
        b.set('agents', `b${index}`, { name: `B${index}`, provider: 'local', model: 'small' }),
      ]);
      await Promise.all(writes);
      const expected = ['default', 'a1', 'a2', 'a3', 'b1', 'b2', 'b3'];
      for (const store of [a, b])
        await eventually(() => expect(Object.keys(store.get().agents).sort()).toEqual([...expected].sort()));
      const entries = await a.history.history(20);
      expect(entries.map((entry) => entry.revision)).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(entries.map((entry) => entry.message).sort()).toEqual([
        'config.set agents.a1',
        'config.set agents.a2',
        'config.set agents.a3',
        'config.set agents.b1',
        'config.set agents.b2',
        'config.set agents.b3',
        'initial config',
      ]);
      expect(new Set(entries.map((entry) => entry.author))).toEqual(new Set(['replica-Assistant']));
    });

    it('reads history and diffs from the revisions and rolls back to one as a new revision, live on every replica', async () => {
      const a = await replica('Assistant');
      const b = await replica('Assistant');
      const first = await a.history.history(1);
      const changed = await a.set('gateway', 'maxBatchSize', 10);
      const [newest] = await b.history.history(5);
      expect(newest).toMatchObject({ sha: changed.sha, message: 'config.set gateway.maxBatchSize', revision: 2 });
      expect(await b.history.diff(changed.sha ?? '')).toContain('+  maxBatchSize: 10');
      expect(await b.history.diff()).toContain('+  maxBatchSize: 10');
      await eventually(() => expect(b.get().gateway.maxBatchSize).toBe(10));

      const rolled = await b.rollback(first[0]?.sha.slice(0, 8) ?? '');
      expect(rolled.rolledBackTo).toBe(first[0]?.sha);
      await eventually(() => expect(a.get().gateway.maxBatchSize).toBe(50));
      expect((await a.history.history(1))[0]).toMatchObject({
        revision: 3,
        message: `config.rollback to ${first[0]?.sha.slice(0, 7)}`,
      });
      await expect(a.rollback('0000000')).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('refuses a change to storage, which each replica reads from its own file', async () => {
      const a = await replica('Assistant');
      await expect(a.patch({ storage: { kind: 'sqlite' } })).rejects.toMatchObject({
        kind: 'invalid_params',
        details: { param: 'storage' },
      });
      expect((await a.history.history(5)).map((entry) => entry.revision)).toEqual([1]);
      // The whole effective config sent back (defaults filled in) changes nothing, storage included.
      expect(await a.apply(structuredClone(a.raw() as Record<string, unknown>))).toMatchObject({ sections: [] });
    });

    it('seeds the secrets.yaml values the file refers to, so a replica without that file resolves them', async () => {
      const a = await replica('Assistant', {
        secret: '${secret:admin-token}',
        secretsYaml: `admin-token: ${ADMIN_SECRET}\n`,
      });
      const b = await replica('Assistant', { secret: OTHER_SECRET });
      expect(a.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
      expect(b.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
      expect(b.raw('gateway')).toMatchObject({ tokens: [{ id: 'admin', secret: '${secret:admin-token}' }] });
    });

    it('keeps a secret set on one replica out of every revision, and the other replica resolves it', async () => {
      const a = await replica('Assistant');
      const b = await replica('Assistant');
      await a.set('providers', 'local.apiKey', 'sk-live-0123456789');
      await eventually(() => expect(b.get().providers.local?.apiKey).toBe('sk-live-0123456789'));
      const documents = await query<{ document: unknown }>(url, 'SELECT document FROM config_revisions');
      expect(JSON.stringify(documents)).not.toContain('sk-live-0123456789');
      expect(b.raw('providers')).toMatchObject({ local: { apiKey: '${secret:providers.local.apiKey}' } });
    });

    it('keeps the running config on a replica where a revision does not validate, and applies the next valid one', async () => {
      const a = await replica('Assistant', { env: { HOOK_SECRET: 'hook-secret-0123456789' } });
      const b = await replica('Assistant');
      const applied: ConfigChange[] = [];
      b.onChange((change) => applied.push(change));
      // HOOK_SECRET is set only where A runs: on B the reference resolves to an empty secret, which is invalid.
      await a.set('gateway', 'webhook', { secret: '${HOOK_SECRET}' });
      await a.set('gateway', 'maxBatchSize', 9);
      await eventually(() => expect(a.get().gateway.maxBatchSize).toBe(9));
      await a.set('gateway', 'webhook', null);
      await eventually(() => expect(b.get().gateway.maxBatchSize).toBe(9));
      expect(b.get().gateway.webhook).toBeUndefined();
      // The two revisions with the webhook were never applied on B: its one change went from revision 1 to 4.
      expect(
        applied.map((change) => [change.previous.gateway.maxBatchSize, change.config.gateway.maxBatchSize]),
      ).toEqual([[50, 9]]);
    });

    it('refuses to start a replica on which the database config does not validate, naming the key', async () => {
      const a = await replica('Assistant', { env: { HOOK_SECRET: 'hook-secret-0123456789' } });
      await a.set('gateway', 'webhook', { secret: '${HOOK_SECRET}' });
      await expect(replica('Assistant')).rejects.toThrow(
        /config revision 2[\s\S]*gateway\.webhook\.secret: must be at least 16 characters/,
      );
    });

    it('refuses a reference outside the secret and URL fields, naming the key; no revision is written', async () => {
      const a = await replica('Assistant');
      await expect(
        a.patch({ agents: { default: { name: 'Helper ${secret:gateway.tokens.admin.secret}' } } }),
      ).rejects.toMatchObject({
        kind: 'invalid_params',
        message: 'Invalid config: agents.default.name: references (${…}) are allowed only in secret and URL fields',
      });
      expect(a.get().agents.default?.name).toBe('Assistant');
      expect(await query(url, 'SELECT revision FROM config_revisions')).toHaveLength(1);
    });
  },
);
