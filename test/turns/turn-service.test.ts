// TurnService: the session is created once with one session:created payload, usage is added once per turn, turns serialise.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { providerConfigSchema } from '../../src/config/index.js';
import { createEventBus, createLogger, createRecorder, type BusEvent, type Recorder } from '../../src/obs/index.js';
import { createModelRouter } from '../../src/providers/index.js';
import { createSqliteEvidencePort, createSqliteSessionPort, openDatabase, type SqliteDatabase, type SqliteSessionPort } from '../../src/store/sqlite/index.js';
import { readSessionUsage, type TurnService } from '../../src/turns/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callerOf, staticAgents } from '../sessions/service-fixture.js';
import { createTurnServiceFixture } from './turn-fixture.js';

const log = createLogger({ level: 'silent' });
const signal = new AbortController().signal;

describe('turn service', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let recorder: Recorder;
  let store: SqliteSessionPort;
  let events: BusEvent[];
  let turns: TurnService;

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
    const bus = createEventBus({ now: Date.now, log });
    events = [];
    bus.subscribe((event) => events.push(event));
    const router = createModelRouter({
      config: { local: providerConfigSchema.parse({ type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] }) },
      events: bus,
      log,
    });
    const agents = staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'small' } });
    turns = createTurnServiceFixture({ agents, router, store, recorder, events: bus });
  });
  afterEach(async () => {
    await recorder.close();
    store.flush();
    db.close();
  });

  const created = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return events.filter((event) => event.name === 'session:created').map((event) => event.payload);
  };

  it('creates a session once, with one session:created payload naming its kind, and adds each turn to its usage once', async () => {
    llm.script({ text: 'one', usage: { inputTokens: 10, outputTokens: 2 } }, { text: 'two', usage: { inputTokens: 20, outputTokens: 3 } });
    await turns.run({ sessionKey: 'default:alice:group-1', message: 'a', caller: callerOf('alice'), signal });
    await turns.run({ sessionKey: 'default:alice:group-1', message: 'b', caller: callerOf('alice'), signal });
    expect(await created()).toEqual([{ sessionKey: 'default:alice:group-1', agentId: 'default', kind: 'group' }]);
    const session = await store.get('default:alice:group-1');
    expect(session).toMatchObject({ kind: 'group', ownerId: 'alice', metadata: { requestedBy: 'alice' } });
    expect(readSessionUsage(session?.metadata ?? {})).toMatchObject({ totalTokens: 35, stepsExecuted: 2, turns: 2 });
  });

  it('a session made by ensureSession (a spawn) is the same kind of record, and its turn adds no second session:created', async () => {
    await turns.ensureSession({ sessionKey: 'default:alice:subagent:r1', agentId: 'default', caller: callerOf('alice'), metadata: { kind: 'sub-agent' } });
    llm.script({ text: 'done' });
    await turns.run({ sessionKey: 'default:alice:subagent:r1', message: 'task', caller: callerOf('alice'), signal });
    expect(await created()).toEqual([{ sessionKey: 'default:alice:subagent:r1', agentId: 'default', kind: 'sub-agent' }]);
    await expect(turns.ensureSession({ sessionKey: 'default:alice:subagent:r1', agentId: 'default', caller: callerOf('mallory') })).rejects.toThrow(expect.objectContaining({ kind: 'forbidden' }));
  });

  it('runs the turns of one session one after the other', async () => {
    llm.script({ text: 'first', delayMs: 50 }, { text: 'second' });
    const [first, second] = await Promise.all([
      turns.run({ sessionKey: 'default:alice:ws', message: 'a', caller: callerOf('alice'), signal }),
      turns.run({ sessionKey: 'default:alice:ws', message: 'b', caller: callerOf('alice'), signal }),
    ]);
    expect([first.response, second.response]).toEqual(['first', 'second']);
    expect((await store.history('default:alice:ws')).map((message) => message.content)).toEqual(['a', 'first', 'b', 'second']);
  });

  it('runs a stateless turn with its seed as history and stores nothing but its evidence', async () => {
    llm.script({ text: 'stateless answer' });
    const seedHistory = [{ role: 'user' as const, content: 'earlier', timestamp: 1 }, { role: 'assistant' as const, content: 'before', timestamp: 2 }];
    const key = 'default:openai-api:openai:chatcmpl-1';
    const result = await turns.run({ sessionKey: key, message: 'now', caller: callerOf('api'), seedHistory, stateless: true, isKeyUnique: true, signal });
    expect(result).toMatchObject({ response: 'stateless answer', finishReason: 'stop', sessionKey: key });
    expect(llm.chatRequests()[0]?.body).toMatchObject({
      messages: [{ role: 'system' }, { role: 'user', content: 'earlier' }, { role: 'assistant', content: 'before' }, { role: 'user', content: 'now' }],
    });
    expect(await store.get(key)).toBeUndefined();
    expect(await store.history(key)).toEqual([]);
    expect(await created()).toEqual([]);
    await recorder.flush();
    expect(db.prepare('SELECT count(*) FROM token_usage WHERE session_key = ?').pluck().get(key)).toBe(1);
  });
});
