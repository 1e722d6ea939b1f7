// TurnHooks through the real TurnService, SQLite and model router, with the scripted fake LLM over HTTP.
import type { TurnHooks, TurnSummary } from '../../src/turns/types.js';
import { createEventBus } from '../../src/events/index.js';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/agents/index.js';
import { providerConfigSchema } from '../../src/config/index.js';
import { createLogger, createRecorder, type Recorder } from '../../src/obs/index.js';
import { createModelRouter } from '../../src/providers/index.js';
import { readSessionKey } from '../../src/sessions/index.js';
import {
  createSqliteEvidencePort,
  createSqliteSessionPort,
  openDatabase,
  type SqliteDatabase,
  type SqliteSessionPort,
} from '../../src/store/sqlite/index.js';
import type { HookSource, TurnService } from '../../src/turns/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callerOf, staticAgents } from '../sessions/service-fixture.js';
import { createTurnServiceFixture } from './turn-fixture.js';

const log = createLogger({ level: 'silent' });

/** A tool that records each run, so a test can tell whether a denied call ever ran. */
function recordingTool(runs: unknown[]) {
  return defineTool({
    name: 'shell',
    description: 'Runs a command.',
    input: z.strictObject({ command: z.string() }),
    execute: async ({ command }) => {
      runs.push(command);
      return { ran: command };
    },
  });
}

interface ChatBody {
  messages: { role: string; content: unknown; tool_call_id?: string }[];
}

function isChatBody(body: unknown): body is ChatBody {
  return typeof body === 'object' && body !== null && 'messages' in body && Array.isArray(body.messages);
}

describe('turn hooks', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let recorder: Recorder;
  let store: SqliteSessionPort;
  let toolRuns: unknown[];

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
    toolRuns = [];
  });
  afterEach(async () => {
    await recorder.close();
    store.flush();
    db.close();
  });

  function turnsWith(...hookSources: HookSource[]): TurnService {
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
      default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 4, tools: ['shell'] },
    });
    return createTurnServiceFixture({
      agents,
      router,
      store,
      recorder,
      events,
      tools: [recordingTool(toolRuns)],
      hookSources,
    });
  }

  const chatBodies = (): ChatBody[] =>
    llm.chatRequests().flatMap((request) => (isChatBody(request.body) ? [request.body] : []));
  const toolResultsSent = (body: ChatBody | undefined) =>
    (body?.messages ?? []).filter((message) => message.role === 'tool').map((message) => message.content);

  it('beforeModel context reaches the provider request in front of the history, for that call only', async () => {
    const recall: Partial<TurnHooks> = {
      beforeModel: async ({ message, step }) => ({
        source: 'memory',
        messages: [{ role: 'system', content: `Recalled for "${message}" at step ${step}`, timestamp: 0 }],
      }),
    };
    const turns = turnsWith({ name: 'memory', hooks: recall });
    llm.script({ text: 'Hello Bob' });
    const result = await turns.run({
      ...readSessionKey('default:alice:ws'),
      message: 'What is my name?',
      caller: callerOf('alice'),
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ response: 'Hello Bob', finishReason: 'stop' });
    const sent = chatBodies()[0]?.messages.map((message) => [message.role, message.content]);
    // System messages join the system prompt on the wire (providers/messages.ts), after the agent's own.
    expect(sent).toEqual([
      ['system', 'You are a helpful assistant.\n\nRecalled for "What is my name?" at step 1'],
      ['user', 'What is my name?'],
    ]);
    // Context is per call: the stored transcript holds only the turn itself.
    expect((await store.history('default:alice:ws')).map((message) => message.content)).toEqual([
      'What is my name?',
      'Hello Bob',
    ]);
  });

  it('beforeModel additions of several modules are concatenated in module order', async () => {
    const adds = (text: string): Partial<TurnHooks> => ({
      beforeModel: async () => ({ source: text, messages: [{ role: 'system', content: text, timestamp: 0 }] }),
    });
    const turns = turnsWith(
      { name: 'first', hooks: adds('first') },
      { name: 'none' },
      { name: 'second', hooks: adds('second') },
    );
    llm.script({ text: 'ok' });
    await turns.run({
      ...readSessionKey('default:alice:ws'),
      message: 'hi',
      caller: callerOf('alice'),
      signal: new AbortController().signal,
    });
    expect(chatBodies()[0]?.messages[0]?.content).toBe('You are a helpful assistant.\n\nfirst\n\nsecond');
  });

  it('a beforeTool deny never runs the tool, and the model sees an error result naming the reason', async () => {
    const allowAll: Partial<TurnHooks> = { beforeTool: async () => ({ action: 'allow' }) };
    const gate: Partial<TurnHooks> = {
      beforeTool: async ({ toolName }) =>
        toolName === 'shell' ? { action: 'deny', reason: 'shell needs approval' } : { action: 'allow' },
    };
    const turns = turnsWith({ name: 'open', hooks: allowAll }, { name: 'approvals', hooks: gate });
    llm.script(
      { toolCalls: [{ name: 'shell', arguments: { command: 'rm -rf /' } }] },
      { text: 'I was not allowed to run that.' },
    );
    const result = await turns.run({
      ...readSessionKey('default:alice:ws'),
      message: 'clean up',
      caller: callerOf('alice'),
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ response: 'I was not allowed to run that.', finishReason: 'stop', steps: 2 });
    expect(toolRuns).toEqual([]);
    expect(toolResultsSent(chatBodies()[1])).toEqual(['Error: shell was denied: shell needs approval']);
  });

  it('a beforeTool wait blocks the call until the decision, then runs it when allowed', async () => {
    let decide = (_decision: { action: 'allow' }): void => {};
    let asked = (): void => {};
    const isAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const approvals: Partial<TurnHooks> = {
      beforeTool: async () => {
        asked();
        return {
          action: 'wait',
          decision: new Promise((resolve) => {
            decide = resolve;
          }),
        };
      },
    };
    const turns = turnsWith({ name: 'approvals', hooks: approvals });
    llm.script({ toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] }, { text: 'Listed.' });
    const turn = turns.run({
      ...readSessionKey('default:alice:ws'),
      message: 'list',
      caller: callerOf('alice'),
      signal: new AbortController().signal,
    });
    await isAsked;
    await new Promise((resolve) => setImmediate(resolve));
    expect(toolRuns).toEqual([]);
    expect(llm.chatRequests()).toHaveLength(1);
    decide({ action: 'allow' });
    expect(await turn).toMatchObject({ response: 'Listed.', finishReason: 'stop' });
    expect(toolRuns).toEqual(['ls']);
    expect(toolResultsSent(chatBodies()[1])).toEqual(['{"ran":"ls"}']);
  });

  it('a wait ends as a denial when the turn is aborted, and the tool never runs', async () => {
    let asked = (): void => {};
    const isAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const approvals: Partial<TurnHooks> = {
      beforeTool: async () => {
        asked();
        return { action: 'wait', decision: new Promise(() => {}) };
      },
    };
    const turns = turnsWith({ name: 'approvals', hooks: approvals });
    llm.script({ toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] });
    const abort = new AbortController();
    const turn = turns.run({
      ...readSessionKey('default:alice:ws'),
      message: 'list',
      caller: callerOf('alice'),
      signal: abort.signal,
    });
    await isAsked;
    abort.abort();
    expect(await turn).toMatchObject({ finishReason: 'aborted' });
    expect(toolRuns).toEqual([]);
    const toolMessages = (await store.history('default:alice:ws')).filter((message) => message.role === 'tool');
    expect(toolMessages).toMatchObject([
      {
        isError: true,
        content: 'Error: shell was denied: the turn was cancelled while the call waited for a decision',
      },
    ]);
  });

  it('afterTool sees each call and afterTurn sees the summary of the finished turn', async () => {
    const toolResults: unknown[] = [];
    const summaries: { summary: TurnSummary; sessionKey: string; clientId: string }[] = [];
    const observer: Partial<TurnHooks> = {
      afterTool: async (result) => {
        toolResults.push({ toolName: result.toolName, ok: result.ok, input: result.input });
      },
      afterTurn: async (summary, ctx) => {
        summaries.push({ summary, sessionKey: ctx.sessionKey, clientId: ctx.clientId });
      },
    };
    const turns = turnsWith({ name: 'observer', hooks: observer });
    llm.script(
      { toolCalls: [{ name: 'shell', arguments: { command: 'date' } }], usage: { inputTokens: 20, outputTokens: 5 } },
      { text: 'Done.', usage: { inputTokens: 30, outputTokens: 7 } },
    );
    const result = await turns.run({
      ...readSessionKey('default:alice:ws'),
      message: 'what day is it',
      caller: callerOf('alice'),
      signal: new AbortController().signal,
    });
    expect(toolResults).toEqual([{ toolName: 'shell', ok: true, input: { command: 'date' } }]);
    expect(summaries).toEqual([
      {
        summary: {
          finishReason: 'stop',
          steps: 2,
          tokensUsed: { input: 50, output: 12, total: 62 },
          costUsd: result.costUsd,
        },
        sessionKey: 'default:alice:ws',
        clientId: 'alice',
      },
    ]);
  });

  it('hooks see the key parts the request carried, for every step of the turn', async () => {
    const seen: unknown[] = [];
    const observer: Partial<TurnHooks> = {
      beforeModel: async (_input, ctx) => {
        seen.push({ sessionKey: ctx.sessionKey, keyParts: ctx.keyParts });
        return undefined;
      },
      afterTurn: async (_summary, ctx) => {
        seen.push({ sessionKey: ctx.sessionKey, keyParts: ctx.keyParts });
      },
    };
    const turns = turnsWith({ name: 'observer', hooks: observer });
    llm.script({ toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] }, { text: 'done' });
    await turns.run({
      ...readSessionKey('acme:alice:telegram:42'),
      message: 'list',
      caller: callerOf('alice', true),
      signal: new AbortController().signal,
    });
    const expected = {
      sessionKey: 'acme:alice:telegram:42',
      keyParts: { tenantId: 'acme', userId: 'alice', channelId: 'telegram', peerId: '42' },
    };
    // Two model steps (the tool call, then the answer) and the end of the turn.
    expect(seen).toEqual([expected, expected, expected]);
  });
});
