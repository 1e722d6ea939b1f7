// Two gateway processes (`agent-gateway start`) on one PostgreSQL and one Redis share a $0.01 agent budget: 20
// clients' concurrent turns spread over both never make the fake LLM bill more than the budget together, the refused
// turns name it, and budgets.usage read on either replica answers the same settled use.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type RunningCli } from '../support/cli.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const ADMIN = 'replica-admin-secret-0123456789abcdefghij';
/** USD per million tokens, input and output alike. */
const PRICE_PER_MILLION = 10;
/** What the fake LLM reports for every call: 160 tokens, $0.0016 (1,600 micro-USD) at the price above. */
const USAGE = { inputTokens: 10, outputTokens: 150 };
const CALL_COST_MICRO_USD = (USAGE.inputTokens + USAGE.outputTokens) * PRICE_PER_MILLION;
const LIMIT_USD = 0.01;

interface Replica {
  home: string;
  process: RunningCli;
  url: string;
}

interface Reply {
  finishReason: string;
  error?: string;
}

describe.skipIf(postgresBinDir === undefined)(
  `e2e: a budget shared by two replicas on one PostgreSQL and one Redis${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    let redis: RedisServer;
    let llm: FakeLlm;
    let a: Replica;
    let b: Replica;

    /** `seed`: the whole config (with the budget), which the first start puts in the database. */
    async function startReplica(databaseUrl: string, { seed }: { seed: boolean }): Promise<Replica> {
      const home = await mkdtemp(join(tmpdir(), 'agent-gateway-replica-budget-'));
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
        '  fake:',
        '    type: openai-compatible',
        `    baseUrl: "${llm.baseUrl}"`,
        '    models:',
        `      - { id: priced, contextWindow: 32768, maxTokens: 200, cost: { input: ${PRICE_PER_MILLION}, output: ${PRICE_PER_MILLION} } }`,
        'agents:',
        '  default: { name: Assistant, provider: fake, model: priced }',
        'budgets:',
        `  - { id: agent-cap, scope: "agent:default", window: day, maxCostUsd: ${LIMIT_USD} }`,
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

    beforeAll(async () => {
      [redis, llm] = await Promise.all([
        startRedisServer(),
        startFakeLlm({ defaultReply: () => ({ text: 'done', usage: USAGE }) }),
      ]);
      const { url } = await server().freshDatabase({ empty: true });
      a = await startReplica(url, { seed: true });
      b = await startReplica(url, { seed: false });
    }, 180_000);
    afterAll(async () => {
      await stopReplica(a);
      await stopReplica(b);
      await llm?.close();
      await redis?.stop();
    });

    it('holds $0.01 over 20 clients spread over both replicas; refusals name it; budgets.usage agrees on A and B', async () => {
      expect(await rpc(b, 'budgets.list')).toMatchObject({ budgets: [{ id: 'agent-cap', maxCostUsd: LIMIT_USD }] });
      const client = async (index: number) => {
        const replica = index % 2 === 0 ? a : b;
        const replies: Reply[] = [];
        for (let turn = 0; turn < 3; turn += 1)
          replies.push(
            (await rpc(replica, 'agent.execute', {
              message: `question ${turn} from client ${index}`,
              sessionKey: { tenantId: 'default', userId: `client-${index}`, channelId: 'budget' },
            })) as unknown as Reply,
          );
        return replies;
      };
      const replies = (await Promise.all(Array.from({ length: 20 }, (_, index) => client(index)))).flat();

      const asked = llm.chatRequests().length;
      const answered = replies.filter((reply) => reply.finishReason === 'stop');
      const refused = replies.filter((reply) => reply.finishReason !== 'stop');
      expect(asked * CALL_COST_MICRO_USD).toBeLessThanOrEqual(LIMIT_USD * 1e6);
      expect(answered).toHaveLength(asked);
      expect(answered.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      for (const reply of refused) {
        expect(reply.finishReason).toBe('budget_exceeded');
        expect(reply.error).toContain("Budget 'agent-cap' is at its limit");
      }

      const usageOn = async (replica: Replica) =>
        (await rpc(replica, 'budgets.usage', { scope: 'agent:default' })).usage as {
          id: string;
          used: { costMicroUsd: number; tokens: number };
          reserved: { costMicroUsd: number; tokens: number };
        }[];
      const onA = await usageOn(a);
      expect(onA).toMatchObject([
        {
          id: 'agent-cap',
          used: { costMicroUsd: asked * CALL_COST_MICRO_USD, tokens: asked * 160 },
          reserved: { costMicroUsd: 0, tokens: 0 },
        },
      ]);
      expect(await usageOn(b)).toEqual(onA);
    }, 120_000);
  },
);
