// The session service and sub-agent runs over the real TurnService, loop and model router, with a scripted LLM server at the process boundary.
import { createEventBus } from '../../src/events/index.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { providerConfigSchema } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createRecorder, type Recorder } from '../../src/obs/recorder.js';
import { createModelRouter } from '../../src/providers/index.js';
import { createRunControl, createSubAgentRuns, type SubAgentRuns } from '../../src/runs/index.js';
import { createSessionService, type SessionService, readSessionKey } from '../../src/sessions/index.js';
import {
  createSqliteEvidencePort,
  createSqliteRunPort,
  createSqliteSessionPort,
  openDatabase,
  type SqliteDatabase,
  type SqliteSessionPort,
} from '../../src/store/sqlite/index.js';
import type { TurnRunner, TurnService } from '../../src/turns/index.js';
import { createLocalInstances, createSessionLocks } from '../../src/coordination/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callerOf, staticAgents } from '../sessions/service-fixture.js';
import { createTurnServiceFixture } from './turn-fixture.js';

const log = createLogger({ level: 'silent' });

describe('session service over the turn loop', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let recorder: Recorder;
  let sessions: SessionService;
  let subAgents: SubAgentRuns;
  let store: SqliteSessionPort;
  let runner: TurnRunner & { ensureSession: TurnService['ensureSession'] };
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
    store = createSqliteSessionPort(db);
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
    const agents = staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 3 } });
    recorder = createRecorder({ port: createSqliteEvidencePort(db) });
    runner = createTurnServiceFixture({ agents, router, store, recorder, events });
    notifications = [];
    let ids = 0;
    sessions = createSessionService({
      store,
      turns: runner,
      router,
      agents,
      locks: createSessionLocks(),
      now: Date.now,
      log,
    });
    const runs = createSqliteRunPort(db);
    const instances = createLocalInstances();
    subAgents = createSubAgentRuns({
      store,
      runs,
      turns: runner,
      instances,
      control: createRunControl({ runs, events, instances, now: Date.now, log, runHeartbeatMs: 30_000 }),
      agents,
      events,
      notify: (clientId, method, params) => notifications.push({ clientId, method, params }),
      now: Date.now,
      newId: () => `run-${++ids}`,
      log,
      maxRunningSpawns: 16,
    });
  });
  afterEach(async () => {
    await subAgents.close();
    await recorder.close();
    store.flush();
    db.close();
  });

  it('session.send answers with the model reply and keeps the transcript', async () => {
    llm.script({ text: 'Hello from the model' });
    const result = await sessions.send({
      key: 'default:alice:group-1',
      message: 'hi',
      caller: callerOf('rpc-client'),
      signal,
    });
    expect(result).toMatchObject({
      sessionKey: 'default:alice:group-1',
      response: 'Hello from the model',
      finishReason: 'stop',
    });
    expect((await sessions.exportSession('default:alice:group-1')).messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello from the model'],
    ]);
    expect((await sessions.list({ kind: 'group', limit: 10 })).sessions.map((entry) => entry.sessionKey)).toEqual([
      'default:alice:group-1',
    ]);
    expect(await sessions.status('rpc-client')).toMatchObject({
      model: 'local/small',
      agentName: 'Assistant',
      stepsExecuted: 1,
      maxSteps: 3,
    });
  });

  it('session.spawn runs the task in a sub-agent session and notifies the result', async () => {
    llm.script({ text: 'Sub-agent finished' });
    const spawned = await subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 'do the thing',
      caller: callerOf('rpc-client'),
    });
    await subAgents.whenIdle();
    expect(await subAgents.runStatus(spawned.runId)).toMatchObject({
      status: 'completed',
      response: 'Sub-agent finished',
    });
    expect((await sessions.list({ kind: 'sub-agent', limit: 10 })).sessions.map((entry) => entry.sessionKey)).toEqual([
      spawned.sessionKey,
    ]);
    expect(notifications).toMatchObject([
      {
        clientId: 'rpc-client',
        method: 'session.completed',
        params: { sessionKey: spawned.sessionKey, result: { status: 'completed' } },
      },
    ]);
  });

  it("refuses a turn on another client's session before writing anything: no message, no update, no model call", async () => {
    llm.script({ text: 'Only for alice' });
    await runner.run({ ...readSessionKey('default:alice:ws'), message: 'hello', caller: callerOf('alice'), signal });
    const before = await store.get('default:alice:ws');
    const trajectoryRows = async () => {
      await recorder.flush();
      return db.prepare('SELECT count(*) FROM trajectory').pluck().get();
    };
    const rowsBefore = await trajectoryRows();
    await expect(
      runner.run({ ...readSessionKey('default:alice:ws'), message: 'hijack', caller: callerOf('mallory'), signal }),
    ).rejects.toMatchObject({
      kind: 'forbidden',
    });
    expect(await store.get('default:alice:ws')).toEqual(before);
    expect((await store.history('default:alice:ws')).map((message) => message.content)).toEqual([
      'hello',
      'Only for alice',
    ]);
    expect(await trajectoryRows()).toBe(rowsBefore);
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('runs an admin caller on any session and a new key for anyone, owned by its creator', async () => {
    await runner.run({ ...readSessionKey('default:alice:ws'), message: 'one', caller: callerOf('alice'), signal });
    await runner.run({ ...readSessionKey('default:alice:ws'), message: 'two', caller: callerOf('root', true), signal });
    await runner.run({ ...readSessionKey('default:bob:ws'), message: 'three', caller: callerOf('alice'), signal });
    expect(await store.get('default:alice:ws')).toMatchObject({ ownerId: 'alice', messageCount: 4 });
    expect((await store.get('default:bob:ws'))?.ownerId).toBe('alice');
    // A row from before owners were recorded, without a requester: only admins reach it.
    await store.ensure({
      sessionKey: 'default:legacy:ws',
      agentId: 'default',
      tenantId: 'default',
      kind: 'dm',
      createdAt: 1,
      metadata: {},
      ownerId: null,
    });
    await expect(
      runner.run({ ...readSessionKey('default:legacy:ws'), message: 'x', caller: callerOf('alice'), signal }),
    ).rejects.toMatchObject({ kind: 'forbidden' });
    await runner.run({ ...readSessionKey('default:legacy:ws'), message: 'x', caller: callerOf('root', true), signal });
    expect(await store.get('default:legacy:ws')).toMatchObject({ ownerId: null, messageCount: 2 });
  });

  it('a failing provider makes the spawned run failed with the error', async () => {
    llm.script({ status: 400, errorMessage: 'bad request' });
    const spawned = await subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 'do the thing',
      caller: callerOf('rpc-client'),
    });
    await subAgents.whenIdle();
    const status = await subAgents.runStatus(spawned.runId);
    expect(status.status).toBe('failed');
    expect(status.error).toEqual(expect.any(String));
  });
});
