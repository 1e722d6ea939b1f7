// Two gateway processes (`agent-gateway start`) on one PostgreSQL and one Redis share a $0.01 agent budget: 20
// clients' concurrent turns spread over both never make the fake LLM bill more than the budget together, the refused
// turns name it, and budgets.usage read on either replica answers the same settled use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLICA_ADMIN_SECRET, replicaRpc, startReplica, stopReplica, type Replica } from '../support/cli-replica.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

/** USD per million tokens, input and output alike. */
const PRICE_PER_MILLION = 10;
/** What the fake LLM reports for every call: 160 tokens, $0.0016 (1,600 micro-USD) at the price above. */
const USAGE = { inputTokens: 10, outputTokens: 150 };
const CALL_COST_MICRO_USD = (USAGE.inputTokens + USAGE.outputTokens) * PRICE_PER_MILLION;
const LIMIT_USD = 0.01;

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

    /** The whole config (with the budget), which the first replica puts in the database. */
    const seedLines = (llmUrl: string) => [
      'gateway:',
      '  tokens:',
      `    - { id: admin, secret: ${REPLICA_ADMIN_SECRET}, scopes: ["*"] }`,
      'providers:',
      '  fake:',
      '    type: openai-compatible',
      `    baseUrl: "${llmUrl}"`,
      '    models:',
      `      - { id: priced, contextWindow: 32768, maxTokens: 200, cost: { input: ${PRICE_PER_MILLION}, output: ${PRICE_PER_MILLION} } }`,
      'agents:',
      '  default: { name: Assistant, provider: fake, model: priced }',
      'budgets:',
      `  - { id: agent-cap, scope: "agent:default", window: day, maxCostUsd: ${LIMIT_USD} }`,
    ];

    beforeAll(async () => {
      [redis, llm] = await Promise.all([
        startRedisServer(),
        startFakeLlm({ defaultReply: () => ({ text: 'done', usage: USAGE }) }),
      ]);
      const { url } = await server().freshDatabase({ empty: true });
      a = await startReplica({ databaseUrl: url, redisUrl: redis.url, seedLines: seedLines(llm.baseUrl) });
      b = await startReplica({ databaseUrl: url, redisUrl: redis.url });
    }, 180_000);
    afterAll(async () => {
      await stopReplica(a);
      await stopReplica(b);
      await llm?.close();
      await redis?.stop();
    });

    it('holds $0.01 over 20 clients spread over both replicas; refusals name it; budgets.usage agrees on A and B', async () => {
      expect(await replicaRpc(b, 'budgets.list')).toMatchObject({
        budgets: [{ id: 'agent-cap', maxCostUsd: LIMIT_USD }],
      });
      const client = async (index: number) => {
        const replica = index % 2 === 0 ? a : b;
        const replies: Reply[] = [];
        for (let turn = 0; turn < 3; turn += 1)
          replies.push(
            (await replicaRpc(replica, 'agent.execute', {
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
        (await replicaRpc(replica, 'budgets.usage', { scope: 'agent:default' })).usage as {
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
