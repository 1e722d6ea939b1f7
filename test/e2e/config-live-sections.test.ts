// Hand edits of config.yaml on a started gateway either apply live or say they cannot: embeddings begin and stop
// answering, gateway.rateLimit and gateway.maxBatchSize change, the webhook mounts and unmounts, and a key read only at
// start (gateway.host) is logged "applies at restart" and listed in gateway.status restartPending until it is undone.
import { createHmac } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { connect as connectTcp, type Socket } from 'node:net';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc, postRpc } from '../support/http-client.js';
import { captureLogs, type LogCapture } from '../support/log-capture.js';

const WEBHOOK_SECRET = 'live-webhook-secret-0123456789';
// A change applies once it is committed to the config history (a git commit), which a loaded machine can take seconds over.
const LIVE = { timeout: 20_000, interval: 50 };

describe('e2e: config sections edited on disk apply live or say they need a restart', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let logs: LogCapture;
  beforeAll(async () => {
    llm = await startFakeLlm();
    logs = captureLogs('info');
    harness = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
      log: logs.log,
    });
  });
  afterAll(async () => {
    await harness.close();
    await llm.close();
  });

  const editFile = async (edit: (document: Record<string, unknown>) => void) => {
    const document = parseYaml(await readFile(harness.paths.configPath, 'utf8')) as Record<string, unknown>;
    edit(document);
    // Written whole, then moved into place: the gateway's watcher never reads a half-written file (a truncated YAML
    // can parse, and one without its tokens would lock the test out).
    const staged = `${harness.paths.configPath}.edit`;
    await writeFile(staged, stringifyYaml(document));
    await rename(staged, harness.paths.configPath);
  };
  const editGateway = (edit: (gateway: Record<string, unknown>) => void) =>
    editFile((document) => edit(document.gateway as Record<string, unknown>));
  const embed = () =>
    fetch(`${harness.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'embed-small', input: 'hello' }),
    });
  const gatewayStatus = async () => {
    const response = await callRpc(harness.url, harness.tokens.admin, 'gateway.status', {});
    if (response.error !== undefined) throw new Error(`gateway.status: ${JSON.stringify(response.error)}`);
    return response.result as { restartPending: string[] };
  };

  it('starts answering /v1/embeddings when embeddings: is added, and stops when it is removed', async () => {
    const before = await embed();
    expect(before.status).toBe(404);
    expect(await before.json()).toMatchObject({ error: { message: 'No embedding provider configured' } });
    await editFile((document) => {
      document.embeddings = { provider: 'local', model: 'embed-small' };
    });
    await vi.waitFor(async () => expect((await embed()).status).toBe(200), LIVE);
    const answered = (await (await embed()).json()) as { data: { embedding: number[] }[] };
    expect(answered.data[0]?.embedding.length).toBeGreaterThan(0);
    // Memory embeds with it too.
    expect((await callRpc(harness.url, harness.tokens.admin, 'memory.stats', {})).result).toMatchObject({
      embeddingProvider: 'local/embed-small',
    });

    await editFile((document) => {
      delete document.embeddings;
    });
    await vi.waitFor(async () => expect((await embed()).status).toBe(404), LIVE);
    expect((await callRpc(harness.url, harness.tokens.admin, 'memory.stats', {})).result).toMatchObject({
      embeddingProvider: expect.stringMatching(/^builtin\//),
    });
  });

  it('applies a new gateway.rateLimit to the next request', async () => {
    const ping = () => postRpc(harness.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, harness.tokens.rpc);
    expect((await ping()).headers.get('x-ratelimit-limit')).toBe('100');
    await editGateway((gateway) => {
      gateway.rateLimit = { windowMs: 60_000, maxRequests: 3 };
    });
    await vi.waitFor(async () => expect((await ping()).headers.get('x-ratelimit-limit')).toBe('3'), LIVE);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) statuses.push((await ping()).status);
    expect(statuses).toContain(429);
    const refused = await ping();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: 'rate_limited', message: 'Rate limit exceeded: 3 requests per 60000 ms' },
    });

    await editGateway((gateway) => {
      gateway.rateLimit = { windowMs: 60_000, maxRequests: 1_000 };
    });
    await vi.waitFor(async () => expect((await ping()).headers.get('x-ratelimit-limit')).toBe('1000'), LIVE);
    expect((await ping()).status).toBe(200);
    expect((await gatewayStatus()).restartPending).toEqual([]);
  });

  it('applies a new gateway.maxBatchSize to the next batch', async () => {
    const batch = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'system.ping' }));
    expect(Array.isArray((await postRpc(harness.url, batch, harness.tokens.rpc)).body)).toBe(true);
    await editGateway((gateway) => {
      gateway.maxBatchSize = 2;
    });
    await vi.waitFor(
      async () =>
        expect((await postRpc(harness.url, batch, harness.tokens.rpc)).body).toMatchObject({
          error: { code: -32600, message: 'Batch of 3 requests exceeds maximum of 2' },
        }),
      LIVE,
    );
  });

  it('applies gateway.maxConnectionsPerAddress and gateway.maxConnections to the next request and socket', async () => {
    const { hostname, port } = new URL(harness.url);
    const open = async (count: number) => {
      const sockets = await Promise.all(
        Array.from(
          { length: count },
          () =>
            new Promise<Socket>((resolve) => {
              const socket = connectTcp({ host: hostname, port: Number(port) }, () => resolve(socket));
              socket.on('error', () => undefined);
            }),
        ),
      );
      return { sockets, closed: () => sockets.filter((socket) => socket.closed).length };
    };
    const anonymousPost = () => postRpc(harness.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' });
    expect((await anonymousPost()).status).toBe(401);
    const idle = await open(8);
    try {
      await editGateway((gateway) => {
        gateway.maxConnectionsPerAddress = 4;
      });
      // Past its share, an address's requests need a valid token too.
      await vi.waitFor(async () => expect((await anonymousPost()).status).toBe(503), LIVE);
      expect(
        (await postRpc(harness.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, harness.tokens.rpc)).status,
      ).toBe(200);

      await editGateway((gateway) => {
        delete gateway.maxConnectionsPerAddress;
        gateway.maxConnections = 12;
      });
      await vi.waitFor(async () => expect((await anonymousPost()).status).toBe(401), LIVE);
      const more = await open(20);
      idle.sockets.push(...more.sockets);
      // Beyond the new cap Node closes each socket as it arrives.
      await vi.waitFor(() => expect(idle.closed()).toBeGreaterThanOrEqual(16), LIVE);
    } finally {
      for (const socket of idle.sockets) socket.destroy();
      await editGateway((gateway) => {
        delete gateway.maxConnections;
      });
    }
    await vi.waitFor(
      async () =>
        expect(
          (await postRpc(harness.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, harness.tokens.rpc)).status,
        ).toBe(200),
      LIVE,
    );
    expect((await gatewayStatus()).restartPending).toEqual([]);
  });

  it('mounts POST /hooks/webhook when gateway.webhook is added and unmounts it, with the same 404, when it is removed', async () => {
    const body = JSON.stringify({ event: 'live.edit', data: { n: 1 } });
    const deliver = (signed: string) =>
      fetch(`${harness.url}/hooks/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': createHmac('sha256', WEBHOOK_SECRET).update(signed).digest('hex'),
        },
        body: signed,
      });
    /** The enabled channels of GET /api/channels. */
    const channels = async () => {
      const response = await fetch(`${harness.url}/api/channels`, {
        headers: { authorization: `Bearer ${harness.tokens.rpc}` },
      });
      if (!response.ok) throw new Error(`GET /api/channels: ${response.status} ${await response.text()}`);
      const { channels: listed } = (await response.json()) as { channels: { channelId: string; enabled: boolean }[] };
      return listed.filter((channel) => channel.enabled).map((channel) => channel.channelId);
    };
    const unmounted = await deliver(body);
    const unmountedAnswer = {
      status: unmounted.status,
      type: unmounted.headers.get('content-type'),
      body: await unmounted.text(),
    };
    expect(unmountedAnswer).toEqual({
      status: 404,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({ error: { code: 'not_found', message: 'Route POST /hooks/webhook not found' } }),
    });
    expect(await channels()).not.toContain('webhook');

    llm.script({ text: 'Handled live.' });
    await editGateway((gateway) => {
      gateway.webhook = { secret: WEBHOOK_SECRET, agentId: 'default' };
    });
    await vi.waitFor(
      async () =>
        expect((await deliver(JSON.stringify({ event: 'live.edit', data: { at: Date.now() } }))).status).toBe(202),
      LIVE,
    );
    expect(await channels()).toContain('webhook');

    await editGateway((gateway) => {
      delete gateway.webhook;
    });
    await vi.waitFor(async () => expect((await deliver(body)).status).toBe(404), LIVE);
    const again = await deliver(body);
    expect({ status: again.status, type: again.headers.get('content-type'), body: await again.text() }).toEqual(
      unmountedAnswer,
    );
    expect(await channels()).not.toContain('webhook');
  });

  it('logs a gateway.host change as applying at restart and lists it in gateway.status restartPending until it is undone', async () => {
    expect((await gatewayStatus()).restartPending).toEqual([]);
    await editGateway((gateway) => {
      gateway.host = '0.0.0.0';
    });
    await vi.waitFor(async () => expect((await gatewayStatus()).restartPending).toEqual(['gateway.host']), LIVE);
    const line = JSON.parse(await logs.waitFor('applies at restart')) as { keys: string[] };
    expect(line.keys).toEqual(['gateway.host']);
    // Still served where it listened.
    expect(
      (await postRpc(harness.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, harness.tokens.rpc)).status,
    ).toBe(200);

    await editGateway((gateway) => {
      gateway.host = '127.0.0.1';
    });
    await vi.waitFor(async () => expect((await gatewayStatus()).restartPending).toEqual([]), LIVE);
  });
});
