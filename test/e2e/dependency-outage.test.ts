// PostgreSQL or Redis going away while the gateway runs (issue 30, item 10): requests that need it answer
// `unavailable` with a retry hint (503 + Retry-After on HTTP, -32603 data.kind unavailable + retryAfterMs on
// JSON-RPC), /ready says which dependency is down while /health stays 200, and the HTTP rate limit keeps counting
// in the process when its shared Redis counter is gone.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import {
  POSTGRES_SKIP_REASON,
  postgresBinDir,
  startPostgresServer,
  type PostgresServer,
} from '../support/postgres-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { connectOpen } from '../support/ws-client.js';

/** vi.waitFor waits for an event here (the outage being noticed), never measures speed. */
const WAIT = { timeout: 15_000, interval: 50 };
const RATE_LIMIT = 8;

interface Ready {
  status: number;
  body: { status: string; dependencies: Record<string, string> };
}

async function ready(gateway: Harness): Promise<Ready> {
  const response = await fetch(`${gateway.url}/ready`);
  return { status: response.status, body: (await response.json()) as Ready['body'] };
}

function expectRetryAfter(response: Response): void {
  const seconds = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(seconds) && seconds >= 1).toBe(true);
}

/** The -32603 answer every JSON-RPC call gets while a dependency it needs is down. */
const unavailableAnswer = {
  code: -32603,
  message: expect.any(String),
  data: { kind: 'unavailable', retryAfterMs: expect.any(Number) },
};

function agentOptions(llm: FakeLlm): HarnessOptions {
  return {
    providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
    agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
  };
}

describe.skipIf(postgresBinDir === undefined)(
  `dependency outage: PostgreSQL stops${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    let postgres: PostgresServer;
    let llm: FakeLlm;
    let gateway: Harness;
    let storedSecret: string;

    beforeAll(async () => {
      [postgres, llm] = await Promise.all([startPostgresServer(), startFakeLlm()]);
      const { url } = await postgres.freshDatabase({ empty: true });
      gateway = await startGateway({ ...agentOptions(llm), storage: { kind: 'postgres', url } });
      const created = await callRpc(gateway.url, gateway.tokens.admin, 'tokens.create', {
        id: 'stored-bot',
        scopes: ['rpc'],
      });
      storedSecret = String((created.result as { secret: string }).secret);
      expect(await ready(gateway)).toEqual({
        status: 200,
        body: expect.objectContaining({ status: 'ready', dependencies: { storage: 'ok', coordination: 'ok' } }),
      });
      await postgres.stop();
      await vi.waitFor(async () => expect((await ready(gateway)).status).toBe(503), WAIT);
    }, 90_000);
    afterAll(async () => {
      await gateway?.close();
      await llm?.close();
    });

    it('/ready answers 503 naming storage; /health still answers 200', async () => {
      expect(await ready(gateway)).toEqual({
        status: 503,
        body: expect.objectContaining({
          status: 'unavailable',
          dependencies: { storage: 'unreachable', coordination: 'ok' },
        }),
      });
      const health = await fetch(`${gateway.url}/health`);
      expect(health.status).toBe(200);
    });

    it('a token kept in the store answers 503 unavailable with Retry-After, not 500', async () => {
      const response = await fetch(`${gateway.url}/api/agents`, {
        headers: { authorization: `Bearer ${storedSecret}` },
      });
      expect(response.status).toBe(503);
      expectRetryAfter(response);
      expect(await response.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
    });

    it('a method that reads the store and a turn answer -32603 unavailable with retryAfterMs', async () => {
      expect(await callRpc(gateway.url, gateway.tokens.admin, 'session.list', {})).toMatchObject({
        error: unavailableAnswer,
      });
      expect(await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', { message: 'hello' })).toMatchObject({
        error: unavailableAnswer,
      });
    });

    it('/v1 with a token kept in the store answers 503 with Retry-After in the OpenAI envelope', async () => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${storedSecret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(response.status).toBe(503);
      expectRetryAfter(response);
      expect(await response.json()).toMatchObject({ error: { type: 'server_error', code: null } });
    });

    it('a WebSocket upgrade with a stored token answers 503 instead of being reset', async () => {
      await expect(connectOpen(`${gateway.wsUrl}?token=${encodeURIComponent(storedSecret)}`)).rejects.toThrow(
        'upgrade refused: HTTP 503',
      );
    });

    it('shuts down completely although the usage counters cannot be flushed to the stopped PostgreSQL', async () => {
      await expect(gateway.close()).resolves.toBeUndefined();
    });
  },
);

describe('dependency outage: Redis stops', () => {
  let redis: RedisServer;
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    [redis, llm] = await Promise.all([startRedisServer(), startFakeLlm()]);
    gateway = await startGateway({
      ...agentOptions(llm),
      gateway: { rateLimit: { maxRequests: RATE_LIMIT, windowMs: 600_000 } },
      coordination: { kind: 'redis', url: redis.url },
    });
    expect(await ready(gateway)).toEqual({
      status: 200,
      body: expect.objectContaining({ status: 'ready', dependencies: { storage: 'ok', coordination: 'ok' } }),
    });
    await redis.stop();
    await vi.waitFor(async () => expect((await ready(gateway)).status).toBe(503), WAIT);
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await llm?.close();
  });

  it('/ready answers 503 naming coordination; /health still answers 200', async () => {
    expect(await ready(gateway)).toEqual({
      status: 503,
      body: expect.objectContaining({
        status: 'unavailable',
        dependencies: { storage: 'ok', coordination: 'unreachable' },
      }),
    });
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });

  it('keeps gateway.rateLimit in the process: of many requests at once, exactly maxRequests get through', async () => {
    const statuses = await Promise.all(
      Array.from({ length: RATE_LIMIT * 3 }, () =>
        fetch(`${gateway.url}/rpc`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping' }),
        }).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(RATE_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(RATE_LIMIT * 2);
  });

  it('a turn, which needs the session lock, answers -32603 unavailable with retryAfterMs', async () => {
    expect(await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', { message: 'hello' })).toMatchObject({
      error: unavailableAnswer,
    });
  });
});
