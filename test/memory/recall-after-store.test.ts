// A memory stored after a turn that found its agent with none is recalled by the next turn: alone on a SQLite file
// (the empty scope may be remembered, and the store forgets it), and on replicas sharing a database (PostgreSQL, or one
// SQLite file under Redis coordination), where the memory is stored through the other replica.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RECALL_HEADER } from '../../src/memory/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const MEMORY = 'Dana lives in Lisbon';

function options(llm: FakeLlm): HarnessOptions {
  return {
    providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
    agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
  };
}

/** Runs an admin turn (admins recall every memory of the agent) and answers what the model was sent. */
async function turnSent(llm: FakeLlm, gateway: Harness, userId: string): Promise<string> {
  const response = await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', {
    message: 'Where does Dana live?',
    sessionKey: { tenantId: 'default', userId, channelId: 'chat' },
  });
  expect(response.error).toBeUndefined();
  return JSON.stringify(llm.chatRequests().at(-1)?.body);
}

/** The turn on `turns` before the store recalls nothing; the store goes through `stores`; the next turn recalls it. */
async function expectRecalledAfterStore(llm: FakeLlm, turns: Harness, stores: Harness): Promise<void> {
  const before = await turnSent(llm, turns, 'first');
  expect(before).not.toContain(RECALL_HEADER);
  expect(before).not.toContain(MEMORY);
  const stored = await callRpc(stores.url, stores.tokens.admin, 'memory.store', { content: MEMORY });
  expect(stored.error).toBeUndefined();
  const after = await turnSent(llm, turns, 'second');
  expect(after).toContain(RECALL_HEADER);
  expect(after).toContain(MEMORY);
}

describe('recall after a memory is stored', () => {
  const llms: FakeLlm[] = [];
  const gateways: Harness[] = [];
  let redis: RedisServer | undefined;
  let dbDir: string | undefined;
  const llm = async () => {
    const started = await startFakeLlm();
    llms.push(started);
    return started;
  };
  const gateway = async (harness: HarnessOptions) => {
    const started = await startGateway(harness);
    gateways.push(started);
    return started;
  };

  afterAll(async () => {
    for (const started of gateways) await started.close();
    for (const started of llms) await started.close();
    await redis?.stop();
    if (dbDir !== undefined) await rm(dbDir, { recursive: true, force: true });
  });

  it('recalls on one gateway alone on its SQLite file a memory stored through memory.store after an empty turn', async () => {
    const fake = await llm();
    const alone = await gateway(options(fake));
    await expectRecalledAfterStore(fake, alone, alone);
  });

  it('recalls on replica B a memory stored through replica A on their shared SQLite file', async () => {
    const fake = await llm();
    redis = await startRedisServer();
    dbDir = await mkdtemp(join(tmpdir(), 'agent-gateway-shared-db-'));
    const shared: HarnessOptions = {
      ...options(fake),
      coordination: { kind: 'redis', url: redis.url },
      sharedDatabasePath: join(dbDir, 'gateway.db'),
    };
    const a = await gateway(shared);
    const b = await gateway(shared);
    await expectRecalledAfterStore(fake, b, a);
  });

  describe.skipIf(postgresBinDir === undefined)(
    `on PostgreSQL${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
    () => {
      const server = usePostgresServer();

      it('recalls on replica B a memory stored through replica A', async () => {
        const fake = await llm();
        const { url } = await server().freshDatabase({ empty: true });
        const onPostgres: HarnessOptions = { ...options(fake), storage: { kind: 'postgres', url } };
        const [a, b] = await Promise.all([gateway(onPostgres), gateway(onPostgres)]);
        await expectRecalledAfterStore(fake, b, a);
      });
    },
  );
});
