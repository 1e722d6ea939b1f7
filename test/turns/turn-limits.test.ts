// Turn limits an agent sets under `budget` (tool result cap, loop repeat limit), seen on the wire and in the result.
import { createEventBus } from '../../src/events/index.js';
import { z } from 'zod';
import { readSessionKey } from '../../src/sessions/index.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/agents/index.js';
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
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callerOf, staticAgents } from '../sessions/service-fixture.js';
import { createTurnServiceFixture } from './turn-fixture.js';

const log = createLogger({ level: 'silent' });

const longTool = defineTool({
  name: 'read_file',
  description: 'Reads a file.',
  input: z.strictObject({ path: z.string() }),
  execute: async () => 'x'.repeat(50),
});

describe('turn limits from the agent budget', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let recorder: Recorder;
  let store: SqliteSessionPort;

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
  });
  afterEach(async () => {
    await recorder.close();
    store.flush();
    db.close();
  });

  function turnsFor(budget: Record<string, number>): TurnService {
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
    const agents = staticAgents({
      default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 6, tools: ['read_file'], budget },
    });
    return createTurnServiceFixture({ agents, router, store, recorder, events, tools: [longTool] });
  }

  const run = (turns: TurnService, sessionKey = 'default:alice:ws') =>
    turns.run({
      ...readSessionKey(sessionKey),
      message: 'go',
      caller: callerOf('alice'),
      signal: new AbortController().signal,
    });
  const toolResults = async () =>
    (await store.history('default:alice:ws'))
      .filter((message) => message.role === 'tool')
      .map((message) => message.content);

  it('cuts a tool result at budget.maxToolResultChars', async () => {
    llm.script({ toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }, { text: 'read' });
    await run(turnsFor({ maxToolResultChars: 10 }));
    expect(await toolResults()).toEqual([`${'x'.repeat(10)}… [truncated 40 characters]`]);
  });

  it('ends the turn with context_loop at budget.loopRepeatLimit, and at 3 repeats by default', async () => {
    const same = { toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] };
    llm.script(same, same, { text: 'never reached' });
    expect(await run(turnsFor({ loopRepeatLimit: 2 }))).toMatchObject({ finishReason: 'context_loop', steps: 2 });

    llm.reset();
    llm.script(same, same, same, { text: 'never reached' });
    expect(await run(turnsFor({}), 'default:alice:other')).toMatchObject({ finishReason: 'context_loop', steps: 3 });
  });
});
