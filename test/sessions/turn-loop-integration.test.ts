// The session service over the real turn loop and model router, with a scripted LLM server at the process boundary.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTurnLoop } from '../../src/agents/turn-loop.js';
import { createToolRegistry } from '../../src/agents/tools/tool-registry.js';
import { providerConfigSchema } from '../../src/config/index.js';
import { createEventBus } from '../../src/obs/event-bus.js';
import { createLogger } from '../../src/obs/logger.js';
import { createRecorder, type Recorder } from '../../src/obs/recorder.js';
import { createModelRouter } from '../../src/providers/index.js';
import { createSessionService, type SessionService } from '../../src/sessions/index.js';
import { createSqliteRunStore, createSqliteSessionStore, openDatabase, type SqliteDatabase } from '../../src/store/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { staticAgents } from './service-fixture.js';

const log = createLogger({ level: 'silent' });

describe('session service over the turn loop', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let recorder: Recorder;
  let sessions: SessionService;
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
    const store = createSqliteSessionStore(db);
    const router = createModelRouter({
      config: { local: providerConfigSchema.parse({ type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] }) },
      events,
      log,
    });
    const agents = staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 3 } });
    recorder = createRecorder({ db });
    const runner = createTurnLoop({ agents, router, sessions: store, tools: createToolRegistry([]), events, recorder, log, now: Date.now });
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
    recorder.close();
    db.close();
  });

  it('session.send answers with the model reply and keeps the transcript', async () => {
    llm.script({ text: 'Hello from the model' });
    const result = await sessions.send({ key: 'default:alice:group-1', message: 'hi', requestedBy: 'rpc-client', signal });
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
    const spawned = sessions.spawn({ parentKey: 'default:alice:ws', task: 'do the thing', requestedBy: 'rpc-client' });
    await sessions.whenIdle();
    expect(sessions.runStatus(spawned.runId)).toMatchObject({ status: 'completed', response: 'Sub-agent finished' });
    expect(sessions.list({ kind: 'sub-agent' }).map((entry) => entry.sessionKey)).toEqual([spawned.sessionKey]);
    expect(notifications).toMatchObject([{ clientId: 'rpc-client', method: 'session.completed', params: { sessionKey: spawned.sessionKey, result: { status: 'completed' } } }]);
  });

  it('a failing provider makes the spawned run failed with the error', async () => {
    llm.script({ status: 400, errorMessage: 'bad request' });
    const spawned = sessions.spawn({ parentKey: 'default:alice:ws', task: 'do the thing', requestedBy: 'rpc-client' });
    await sessions.whenIdle();
    const status = sessions.runStatus(spawned.runId);
    expect(status.status).toBe('failed');
    expect(status.error).toEqual(expect.any(String));
  });
});
