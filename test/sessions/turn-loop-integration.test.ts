// The session service over the real turn loop and model router, with a scripted LLM server at the process boundary.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTurnLoop } from '../../src/agents/turn-loop.js';
import { createToolRegistry } from '../../src/agents/tools/tool-registry.js';
import { providerConfigSchema } from '../../src/config/index.js';
import { createEventBus } from '../../src/obs/event-bus.js';
import { createLogger } from '../../src/obs/logger.js';
import { createRecorder, type Recorder } from '../../src/obs/recorder.js';
import { createModelRouter } from '../../src/providers/index.js';
import { createSessionService, type SessionService, type SessionStore } from '../../src/sessions/index.js';
import type { TurnRunner } from '../../src/agents/types.js';
import { createSqliteRunStore, createSqliteSessionStore, openDatabase, type SqliteDatabase } from '../../src/store/index.js';
import { createSqliteEvidencePort } from '../../src/store/sqlite/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callerOf, staticAgents } from './service-fixture.js';

const log = createLogger({ level: 'silent' });

describe('session service over the turn loop', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let recorder: Recorder;
  let sessions: SessionService;
  let store: SessionStore;
  let runner: TurnRunner;
  let notifications: { clientId: string | null; method: string; params: unknown }[];
  const signal = new AbortController().signal;

  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
    db = openDatabase({ path: ':memory:' });
    const events = createEventBus({ now: Date.now, log });
    store = createSqliteSessionStore(db);
    const router = createModelRouter({
      config: { local: providerConfigSchema.parse({ type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] }) },
      events,
      log,
    });
    const agents = staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 3 } });
    recorder = createRecorder({ port: createSqliteEvidencePort(db) });
    runner = createTurnLoop({ agents, router, sessions: store, tools: createToolRegistry([]), events, recorder, log, now: Date.now });
    notifications = [];
    let ids = 0;
    sessions = createSessionService({
      store,
      runs: createSqliteRunStore(db),
      runner,
      router,
      agents,
      events,
      notify: (clientId, method, params) => notifications.push({ clientId, method, params }),
      now: Date.now,
      newId: () => `run-${++ids}`,
      log,
    });
  });
  afterEach(async () => {
    await sessions.close();
    await recorder.close();
    db.close();
  });

  it('session.send answers with the model reply and keeps the transcript', async () => {
    llm.script({ text: 'Hello from the model' });
    const result = await sessions.send({ key: 'default:alice:group-1', message: 'hi', caller: callerOf('rpc-client'), signal });
    expect(result).toMatchObject({ sessionKey: 'default:alice:group-1', response: 'Hello from the model', finishReason: 'stop' });
    expect(sessions.exportSession('default:alice:group-1').messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello from the model'],
    ]);
    expect(sessions.list({ kind: 'group' }).map((entry) => entry.sessionKey)).toEqual(['default:alice:group-1']);
    expect(sessions.status('rpc-client')).toMatchObject({ model: 'local/small', agentName: 'Assistant', stepsExecuted: 1, maxSteps: 3 });
  });

  it('session.spawn runs the task in a sub-agent session and notifies the result', async () => {
    llm.script({ text: 'Sub-agent finished' });
    const spawned = sessions.spawn({ parentKey: 'default:alice:ws', task: 'do the thing', caller: callerOf('rpc-client') });
    await sessions.whenIdle();
    expect(sessions.runStatus(spawned.runId)).toMatchObject({ status: 'completed', response: 'Sub-agent finished' });
    expect(sessions.list({ kind: 'sub-agent' }).map((entry) => entry.sessionKey)).toEqual([spawned.sessionKey]);
    expect(notifications).toMatchObject([{ clientId: 'rpc-client', method: 'session.completed', params: { sessionKey: spawned.sessionKey, result: { status: 'completed' } } }]);
  });

  it("refuses a turn on another client's session before writing anything: no message, no update, no model call", async () => {
    llm.script({ text: 'Only for alice' });
    await runner.run({ sessionKey: 'default:alice:ws', message: 'hello', caller: callerOf('alice'), signal });
    const before = store.get('default:alice:ws');
    const trajectoryRows = async () => {
      await recorder.flush();
      return db.prepare('SELECT count(*) FROM trajectory').pluck().get();
    };
    const rowsBefore = await trajectoryRows();
    await expect(runner.run({ sessionKey: 'default:alice:ws', message: 'hijack', caller: callerOf('mallory'), signal })).rejects.toMatchObject({
      kind: 'forbidden',
    });
    expect(store.get('default:alice:ws')).toEqual(before);
    expect(store.history('default:alice:ws').map((message) => message.content)).toEqual(['hello', 'Only for alice']);
    expect(await trajectoryRows()).toBe(rowsBefore);
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('runs an admin caller on any session and a new key for anyone, owned by its creator', async () => {
    await runner.run({ sessionKey: 'default:alice:ws', message: 'one', caller: callerOf('alice'), signal });
    await runner.run({ sessionKey: 'default:alice:ws', message: 'two', caller: callerOf('root', true), signal });
    await runner.run({ sessionKey: 'default:bob:ws', message: 'three', caller: callerOf('alice'), signal });
    expect(store.get('default:alice:ws')).toMatchObject({ ownerId: 'alice', messageCount: 4 });
    expect(store.get('default:bob:ws')?.ownerId).toBe('alice');
    // A row from before owners were recorded, without a requester: only admins reach it.
    store.ensure({ sessionKey: 'default:legacy:ws', agentId: 'default', tenantId: 'default', kind: 'dm', createdAt: 1, metadata: {}, ownerId: null });
    await expect(runner.run({ sessionKey: 'default:legacy:ws', message: 'x', caller: callerOf('alice'), signal })).rejects.toMatchObject({ kind: 'forbidden' });
    await runner.run({ sessionKey: 'default:legacy:ws', message: 'x', caller: callerOf('root', true), signal });
    expect(store.get('default:legacy:ws')).toMatchObject({ ownerId: null, messageCount: 2 });
  });

  it('a failing provider makes the spawned run failed with the error', async () => {
    llm.script({ status: 400, errorMessage: 'bad request' });
    const spawned = sessions.spawn({ parentKey: 'default:alice:ws', task: 'do the thing', caller: callerOf('rpc-client') });
    await sessions.whenIdle();
    const status = sessions.runStatus(spawned.runId);
    expect(status.status).toBe('failed');
    expect(status.error).toEqual(expect.any(String));
  });
});
