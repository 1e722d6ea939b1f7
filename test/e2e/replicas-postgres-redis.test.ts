// Two gateway processes (`agent-gateway start`) on one PostgreSQL and one Redis, as a replicated deployment runs: B,
// whose file only says where the shared servers are, serves the config A's file seeded; a config change made through
// A is live on B, a cron job fires once across both, B reads and cancels A's background responses, and when A is killed
// with SIGKILL in the middle of a turn, B marks A's run orphaned and its background response failed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSse } from '../http/rest/sse-reader.js';
import { spawnCli, type RunningCli } from '../support/cli.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const ADMIN = 'replica-admin-secret-0123456789abcdefghij';
/** The issue's bounds: a config change live on every replica within 2 s, a dead replica's runs orphaned within 15 s. */
const CONFIG_LIVE_MS = 2_000;
const ORPHANED_WITHIN_MS = 15_000;

interface Replica {
  home: string;
  process: RunningCli;
  url: string;
}

describe.skipIf(postgresBinDir === undefined)(
  `e2e: two gateway processes on one PostgreSQL and one Redis${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    let redis: RedisServer;
    let llm: FakeLlm;
    let a: Replica;
    let b: Replica;

    /** `seed`: the whole config, which the first start puts in the database; otherwise only how to reach the shared servers. */
    async function startReplica(databaseUrl: string, { seed }: { seed: boolean }): Promise<Replica> {
      const home = await mkdtemp(join(tmpdir(), 'agent-gateway-replica-'));
      const shared = [
        `storage: { kind: postgres, url: "${databaseUrl}" }`,
        `coordination: { kind: redis, url: "${redis.url}" }`,
        '',
      ];
      const whole = [
        'gateway:',
        '  tokens:',
        `    - { id: admin, secret: ${ADMIN}, scopes: ["*"] }`,
        'providers:',
        `  fake: { type: openai-compatible, baseUrl: "${llm.baseUrl}", models: [{ id: fake-model }] }`,
        'agents:',
        '  default: { name: Assistant, provider: fake, model: fake-model }',
      ];
      await writeFile(join(home, 'config.yaml'), [...(seed ? whole : []), ...shared].join('\n'), { mode: 0o600 });
      const process = spawnCli(['start', '--port', '0'], home);
      const [, url = ''] = await process.waitForOutput(/Agent Gateway listening on (https?:\/\/[^"\s]+)/, 60_000);
      return { home, process, url };
    }

    async function stopReplica(replica: Replica | undefined): Promise<void> {
      if (replica === undefined) return;
      const { child } = replica.process;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await replica.process.exited;
      }
      await rm(replica.home, { recursive: true, force: true });
    }

    async function rpc(replica: Replica, method: string, params: unknown = {}): Promise<Record<string, unknown>> {
      const response = await fetch(`${replica.url}/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
      if (body.result === undefined) throw new Error(`${method} answered ${JSON.stringify(body)}`);
      return body.result;
    }

    /** A /v1/responses call with the admin token; resolves with the response object (or throws with the error body). */
    async function responses(
      replica: Replica,
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
    ): Promise<{ id: string } & Record<string, unknown>> {
      const response = await fetch(`${replica.url}/v1/responses${path}`, {
        method,
        headers: {
          authorization: `Bearer ${ADMIN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as { id?: string } & Record<string, unknown>;
      if (response.status !== 200 || answer.id === undefined)
        throw new Error(`${method} /v1/responses${path} answered ${response.status} ${JSON.stringify(answer)}`);
      return { ...answer, id: answer.id };
    }

    beforeAll(async () => {
      [redis, llm] = await Promise.all([startRedisServer(), startFakeLlm()]);
      const { url } = await server().freshDatabase({ empty: true });
      a = await startReplica(url, { seed: true });
      // B's file names no token, provider or agent: it serves the config A's file put in the database.
      b = await startReplica(url, { seed: false });
    }, 180_000);
    afterAll(async () => {
      await stopReplica(a);
      await stopReplica(b);
      await llm?.close();
      await redis?.stop();
    });

    it('makes an agent created through A live on B: agents.list, config.get and config.history on B show it', async () => {
      expect(await rpc(b, 'agents.list')).toEqual({ agents: ['default'] });
      await rpc(a, 'agents.create', { name: 'Scout', provider: 'fake', model: 'fake-model' });
      await vi.waitFor(async () => expect(await rpc(b, 'agents.list')).toEqual({ agents: ['default', 'scout'] }), {
        timeout: CONFIG_LIVE_MS,
        interval: 50,
      });
      expect(await rpc(b, 'config.get', { section: 'agents' })).toMatchObject({
        scout: { name: 'Scout', provider: 'fake', model: 'fake-model' },
      });
      const { entries } = (await rpc(b, 'config.history', { limit: 5 })) as {
        entries: { message: string; revision: number }[];
      };
      expect(entries.map((entry) => entry.message)).toEqual(['agents.create scout', 'initial config']);
      expect(entries.map((entry) => entry.revision)).toEqual([2, 1]);
    });

    it('announces an agent change on the shared event feed once, by the replica that made it', async () => {
      const onB = await openSse(`${b.url}/api/events?token=${ADMIN}`);
      await rpc(a, 'agents.create', { name: 'Lookout', provider: 'fake', model: 'fake-model' });
      await vi.waitFor(async () => expect((await rpc(b, 'agents.list')).agents).toContain('lookout'), {
        timeout: CONFIG_LIVE_MS,
        interval: 50,
      });
      // B applied the change before it listed the agent: a copy of B's would be in the feed before the next change's.
      await rpc(a, 'agents.create', { name: 'Marker', provider: 'fake', model: 'fake-model' });
      const frames = await onB.until(
        (frame) => frame.event === 'agent:hot_added' && (frame.data ?? '').includes('"marker"'),
      );
      onB.close();
      expect(
        frames.filter((frame) => frame.event === 'agent:hot_added' && (frame.data ?? '').includes('"lookout"')),
      ).toHaveLength(1);
    });

    it('fires a cron job once across both replicas', async () => {
      llm.script({ text: 'Report filed.' });
      const before = llm.chatRequests().length;
      await rpc(a, 'cron.add', {
        name: 'report',
        message: 'File the replica report',
        schedule: { kind: 'once', at: new Date(Date.now() + 1_000).toISOString() },
      });
      const runsOf = async (replica: Replica) =>
        ((await rpc(replica, 'cron.runs', { jobName: 'report' })) as { runs: { status: string }[] }).runs;
      await vi.waitFor(async () => expect(await runsOf(b)).toEqual([expect.objectContaining({ status: 'ok' })]), {
        timeout: 20_000,
        interval: 100,
      });
      expect(await rpc(b, 'cron.status', { name: 'report' })).toMatchObject({ nextRunAtMs: null });
      expect(await runsOf(a)).toHaveLength(1);
      const fired = llm
        .chatRequests()
        .slice(before)
        .filter((request) => JSON.stringify(request.body).includes('File the replica report'));
      expect(fired).toHaveLength(1);
    });

    it("shows B a background response A runs: in_progress, then completed; B's cancel of another wins over A's answer", async () => {
      let release = (): void => {};
      llm.script({ text: 'Background answer.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
      const onA = await responses(a, 'POST', '', { model: 'default', input: 'Work on it', background: true });
      expect(onA).toMatchObject({ status: 'queued', background: true });
      await vi.waitFor(
        async () => expect(await responses(b, 'GET', `/${onA.id}`)).toMatchObject({ status: 'in_progress' }),
        { timeout: 10_000, interval: 50 },
      );
      release();
      await vi.waitFor(
        async () =>
          expect(await responses(b, 'GET', `/${onA.id}`)).toMatchObject({
            status: 'completed',
            output: [expect.objectContaining({ type: 'message' })],
          }),
        { timeout: 10_000, interval: 50 },
      );

      llm.script({ text: 'Dropped answer.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
      const cancelled = await responses(a, 'POST', '', { model: 'default', input: 'Then stop', background: true });
      await vi.waitFor(
        async () => expect(await responses(b, 'GET', `/${cancelled.id}`)).toMatchObject({ status: 'in_progress' }),
        { timeout: 10_000, interval: 50 },
      );
      expect(await responses(b, 'POST', `/${cancelled.id}/cancel`)).toMatchObject({
        id: cancelled.id,
        status: 'cancelled',
      });
      release();
      await vi.waitFor(
        async () =>
          expect(await rpc(b, 'run.get', { runId: cancelled.id })).toMatchObject({
            kind: 'response',
            status: 'failed',
            error: 'The response was cancelled',
          }),
        { timeout: 10_000, interval: 50 },
      );
      expect(await responses(a, 'GET', `/${cancelled.id}`)).toMatchObject({ status: 'cancelled', output: [] });
    });

    it("marks A's run orphaned on B after A is killed with SIGKILL in the middle of the turn", async () => {
      let release = (): void => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      llm.script({ text: 'Never delivered.', heldUntil: held }, { text: 'Never delivered either.', heldUntil: held });
      const before = llm.chatRequests().length;
      const { runId } = (await rpc(a, 'session.spawn', {
        parentKey: 'default:admin:ws',
        task: 'Survey the fleet',
      })) as { runId: string };
      const background = await responses(a, 'POST', '', {
        model: 'default',
        input: 'Survey in the background',
        background: true,
      });
      // The model calls are under way on A: the turns are open when A dies.
      await vi.waitFor(() => expect(llm.chatRequests().length).toBe(before + 2), { timeout: 10_000, interval: 20 });
      expect(await rpc(b, 'run.get', { runId })).toMatchObject({ runId, kind: 'spawn', status: 'running' });
      expect(await responses(b, 'GET', `/${background.id}`)).toMatchObject({ status: 'in_progress' });

      a.process.child.kill('SIGKILL');
      expect(await a.process.exited).toBe('SIGKILL');
      await vi.waitFor(
        async () => expect(await rpc(b, 'run.get', { runId })).toMatchObject({ runId, status: 'orphaned' }),
        { timeout: ORPHANED_WITHIN_MS, interval: 200 },
      );
      // The background response A left running reads failed on B once its run is orphaned.
      await vi.waitFor(
        async () =>
          expect(await responses(b, 'GET', `/${background.id}`)).toMatchObject({
            status: 'failed',
            error: { message: expect.stringContaining('gateway stopped before') },
          }),
        { timeout: ORPHANED_WITHIN_MS, interval: 200 },
      );
      release();
    });
  },
);
