// The turns capability module: builds TurnService over the real loop, router and SQLite, and serves agent.execute and
// agent.stream through JSON-RPC dispatch; the object key reaches the turn as the parts it was given.
import type { TurnHookContext } from '../../src/turns/types.js';
import { createEventBus } from '../../src/events/index.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/agents/index.js';
import { providerConfigSchema } from '../../src/config/index.js';
import { createSessionLocks } from '../../src/coordination/index.js';
import { createLogger, createRecorder, type Recorder } from '../../src/obs/index.js';
import { createModelRouter } from '../../src/providers/index.js';
import { createDispatcher, createRegistry, type DispatchContext } from '../../src/rpc/index.js';
import {
  createSqliteEvidencePort,
  createSqliteSessionPort,
  openDatabase,
  type SqliteDatabase,
  type SqliteSessionPort,
} from '../../src/store/sqlite/index.js';
import { createHookRegistry, createTurnsModule, type TurnsModule } from '../../src/turns/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { tokenGrants } from '../support/token-grants.js';
import { staticAgents } from '../sessions/service-fixture.js';

const log = createLogger({ level: 'silent' });

describe('turns module', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let store: SqliteSessionPort;
  let recorder: Recorder;
  let module: TurnsModule;
  let seen: TurnHookContext[];

  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
    db = openDatabase({ path: ':memory:' });
    store = createSqliteSessionPort(db);
    recorder = createRecorder({ port: createSqliteEvidencePort(db) });
    const events = createEventBus({ now: Date.now, log });
    const router = createModelRouter({
      config: {
        local: providerConfigSchema.parse({
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small' }],
        }),
      },
      events,
      log,
    });
    seen = [];
    const hooks = createHookRegistry(
      [{ name: 'observer', hooks: { afterTurn: async (_summary, ctx) => void seen.push(ctx) } }],
      log,
    );
    module = createTurnsModule({
      agents: staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'small' } }),
      router,
      tools: createToolRegistry([]),
      store,
      locks: createSessionLocks(),
      hooks,
      events,
      recorder,
      grants: tokenGrants(),
      now: Date.now,
      log,
    });
  });
  afterEach(async () => {
    await recorder.close();
    store.flush();
    db.close();
  });

  const ctx: DispatchContext = {
    caller: { clientId: 'alice', scopes: ['rpc'] },
    transport: 'http',
    log,
    signal: new AbortController().signal,
  };

  it('is a capability module named turns that declares agent.execute and agent.stream', () => {
    expect(module.name).toBe('turns');
    expect(
      createRegistry(module.methods ?? [])
        .list()
        .map((method) => [method.name, method.scope]),
    ).toEqual([
      ['agent.execute', 'rpc'],
      ['agent.stream', 'rpc'],
    ]);
  });

  it('runs agent.execute through its TurnService, the object key reaching the turn as the parts given', async () => {
    const dispatcher = createDispatcher({ registry: createRegistry(module.methods ?? []), maxBatchSize: 10 });
    llm.script({ text: 'Hello Alice' }, { text: 'Hello again' });
    const answer = await dispatcher.dispatch(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'agent.execute',
        params: { message: 'hi', sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'ws', peerId: 'p1' } },
      },
      ctx,
    );
    expect(answer).toMatchObject({
      result: { response: 'Hello Alice', finishReason: 'stop', sessionKey: 'default:alice:ws:p1' },
    });
    // Without a key, the caller's own rpc conversation.
    await dispatcher.dispatch({ jsonrpc: '2.0', id: 2, method: 'agent.execute', params: { message: 'again' } }, ctx);
    expect(seen.map(({ sessionKey, keyParts }) => ({ sessionKey, keyParts }))).toEqual([
      {
        sessionKey: 'default:alice:ws:p1',
        keyParts: { tenantId: 'default', userId: 'alice', channelId: 'ws', peerId: 'p1' },
      },
      { sessionKey: 'default:alice:rpc', keyParts: { tenantId: 'default', userId: 'alice', channelId: 'rpc' } },
    ]);
    expect((await store.history('default:alice:ws:p1')).map((message) => message.content)).toEqual([
      'hi',
      'Hello Alice',
    ]);
  });
});
