// TurnService: the session is created once with one session:created payload, usage is added once per turn, turns serialise.
import { createEventBus, type BusEvent, type EventBus } from '../../src/events/index.js';
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { providerConfigSchema } from '../../src/config/index.js';
import { createLogger, createRecorder, type Recorder } from '../../src/obs/index.js';
import { createModelRouter } from '../../src/providers/index.js';
import {
  createSqliteEvidencePort,
  createSqliteSessionPort,
  openDatabase,
  type SqliteDatabase,
  type SqliteSessionPort,
} from '../../src/store/sqlite/index.js';
import type { TurnService } from '../../src/turns/index.js';
import { readSessionUsage, readSessionKey } from '../../src/sessions/index.js';
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
      config: {
        local: providerConfigSchema.parse({
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small' }],
        }),
      },
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
    llm.script(
      { text: 'one', usage: { inputTokens: 10, outputTokens: 2 } },
      { text: 'two', usage: { inputTokens: 20, outputTokens: 3 } },
    );
    await turns.run({ ...readSessionKey('default:alice:group-1'), message: 'a', caller: callerOf('alice'), signal });
    await turns.run({ ...readSessionKey('default:alice:group-1'), message: 'b', caller: callerOf('alice'), signal });
    expect(await created()).toEqual([{ sessionKey: 'default:alice:group-1', agentId: 'default', kind: 'group' }]);
    const session = await store.get('default:alice:group-1');
    expect(session).toMatchObject({ kind: 'group', ownerId: 'alice', metadata: { requestedBy: 'alice' } });
    expect(readSessionUsage(session?.metadata ?? {})).toMatchObject({ totalTokens: 35, stepsExecuted: 2, turns: 2 });
  });

  it('a session made by ensureSession (a spawn) is the same kind of record, and its turn adds no second session:created', async () => {
    await turns.ensureSession({
      ...readSessionKey('default:alice:subagent:r1'),
      agentId: 'default',
      caller: callerOf('alice'),
      metadata: { kind: 'sub-agent' },
    });
    llm.script({ text: 'done' });
    await turns.run({
      ...readSessionKey('default:alice:subagent:r1'),
      message: 'task',
      caller: callerOf('alice'),
      signal,
    });
    expect(await created()).toEqual([
      { sessionKey: 'default:alice:subagent:r1', agentId: 'default', kind: 'sub-agent' },
    ]);
    await expect(
      turns.ensureSession({
        ...readSessionKey('default:alice:subagent:r1'),
        agentId: 'default',
        caller: callerOf('mallory'),
      }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'forbidden' }));
  });

  it('runs the turns of one session one after the other', async () => {
    llm.script({ text: 'first', delayMs: 50 }, { text: 'second' });
    const [first, second] = await Promise.all([
      turns.run({ ...readSessionKey('default:alice:ws'), message: 'a', caller: callerOf('alice'), signal }),
      turns.run({ ...readSessionKey('default:alice:ws'), message: 'b', caller: callerOf('alice'), signal }),
    ]);
    expect([first.response, second.response]).toEqual(['first', 'second']);
    expect((await store.history('default:alice:ws')).map((message) => message.content)).toEqual([
      'a',
      'first',
      'b',
      'second',
    ]);
  });

  it('runs a stateless turn with its seed as history and stores nothing but its evidence', async () => {
    llm.script({ text: 'stateless answer' });
    const seedHistory = [
      { role: 'user' as const, content: 'earlier', timestamp: 1 },
      { role: 'assistant' as const, content: 'before', timestamp: 2 },
    ];
    const key = 'default:openai-api:openai:chatcmpl-1';
    const result = await turns.run({
      ...readSessionKey(key),
      message: 'now',
      caller: callerOf('api'),
      seedHistory,
      stateless: true,
      isKeyUnique: true,
      signal,
    });
    expect(result).toMatchObject({ response: 'stateless answer', finishReason: 'stop', sessionKey: key });
    expect(llm.chatRequests()[0]?.body).toMatchObject({
      messages: [
        { role: 'system' },
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'before' },
        { role: 'user', content: 'now' },
      ],
    });
    expect(await store.get(key)).toBeUndefined();
    expect(await store.history(key)).toEqual([]);
    expect(await created()).toEqual([]);
    await recorder.flush();
    expect(db.prepare('SELECT count(*) FROM token_usage WHERE session_key = ?').pluck().get(key)).toBe(1);
  });
});

describe('turn service: what a turn has stored when it answers', () => {
  let llm: FakeLlm;
  let dir: string;
  let path: string;
  let db: SqliteDatabase;
  let observer: Database.Database;
  let recorder: Recorder;
  let store: SqliteSessionPort;
  let bus: EventBus;
  let turns: TurnService;

  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(async () => {
    llm.reset();
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-turn-commit-'));
    path = join(dir, 'gateway.db');
    db = openDatabase({ path });
    // A second connection reads only what was committed to the file, as a restart after a SIGKILL would.
    observer = new Database(path, { readonly: true });
    store = createSqliteSessionPort(db, { log });
    recorder = createRecorder({ port: createSqliteEvidencePort(db) });
    bus = createEventBus({ now: Date.now, log });
    const router = createModelRouter({
      config: {
        local: providerConfigSchema.parse({
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small' }],
        }),
      },
      events: bus,
      log,
    });
    turns = createTurnServiceFixture({
      agents: staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'small' } }),
      router,
      store,
      recorder,
      events: bus,
    });
  });
  afterEach(async () => {
    await recorder.close();
    store.flush();
    observer.close();
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const committed = (sessionKey: string) => ({
    messages: observer
      .prepare<[string], string>('SELECT content FROM session_messages WHERE session_key = ? ORDER BY id')
      .pluck()
      .all(sessionKey),
    turns: observer
      .prepare<[string], number>('SELECT usage_turns FROM sessions WHERE session_key = ?')
      .pluck()
      .get(sessionKey),
  });

  it('answers turns finishing together only once their messages and usage are committed', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const keys = Array.from({ length: 6 }, (_, index) => `default:alice:commit-${index}`);
    for (const key of keys) llm.script({ text: `answer for ${key}`, heldUntil: held });
    const answered = keys.map(async (sessionKey) => {
      const result = await turns.run({
        ...readSessionKey(sessionKey),
        message: `question for ${sessionKey}`,
        caller: callerOf('alice'),
        signal,
      });
      // Read on the answer, before anything else runs.
      return { response: result.response, ...committed(sessionKey) };
    });
    await expect.poll(() => llm.chatRequests().length).toBe(keys.length);
    release();
    expect(await Promise.all(answered)).toEqual(
      keys.map((key) => ({
        response: `answer for ${key}`,
        messages: [`question for ${key}`, `answer for ${key}`],
        turns: 1,
      })),
    );
  });

  it('answers with an error, not the reply, when the turn could not be stored', async () => {
    llm.script({ text: 'an answer nobody can keep' });
    // Another process deletes the session once the turn's last messages are queued, before they are committed.
    bus.subscribe((event) => {
      if (event.name !== 'message:sent') return;
      const other = openDatabase({ path });
      try {
        other.prepare('DELETE FROM sessions WHERE session_key = ?').run('default:alice:doomed');
      } finally {
        other.close();
      }
    });
    await expect(
      turns.run({ ...readSessionKey('default:alice:doomed'), message: 'hello', caller: callerOf('alice'), signal }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(committed('default:alice:doomed')).toEqual({ messages: [], turns: undefined });
  });

  it("chooses the agent's models once per turn: each configured name is resolved once, fallbacks included", async () => {
    const bus = createEventBus({ now: Date.now, log });
    const router = createModelRouter({
      config: {
        local: providerConfigSchema.parse({
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small' }, { id: 'large' }],
        }),
      },
      events: bus,
      log,
    });
    const resolved: string[] = [];
    const counting: typeof router = {
      ...router,
      resolve: (name) => {
        resolved.push(name);
        return router.resolve(name);
      },
    };
    const agents = staticAgents({ default: { name: 'Assistant', model: 'small', fallbackModels: ['local/large'] } });
    const service = createTurnServiceFixture({ agents, router: counting, store, recorder, events: bus });
    llm.script({ text: 'one' }, { text: 'two' });
    await service.run({ ...readSessionKey('default:alice:ws'), message: 'a', caller: callerOf('alice'), signal });
    expect(resolved).toEqual(['small', 'local/large']);
    await service.run({ ...readSessionKey('default:alice:ws'), message: 'b', caller: callerOf('alice'), signal });
    expect(resolved).toEqual(['small', 'local/large', 'small', 'local/large']);
    // The chosen models are the ones the turn called.
    expect(llm.chatRequests().map((request) => request.body)).toMatchObject([{ model: 'small' }, { model: 'small' }]);
  });
});
