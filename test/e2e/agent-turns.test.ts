import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKEN_IDS, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/obs/logger.js';
import { callRpc, injectRpc } from '../support/http-client.js';
import { connect } from '../support/ws-client.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
});
afterAll(async () => {
  await llm.close();
});

const harnesses: Harness[] = [];
afterEach(async () => {
  llm.reset();
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

type AgentInput = NonNullable<HarnessOptions['agents']>[string];

async function gatewayWith(agent: Partial<AgentInput> = {}, extra: Partial<HarnessOptions> = {}): Promise<Harness> {
  const harness = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512, cost: { input: 1, output: 2 } }],
      },
    },
    agents: {
      default: {
        name: 'Assistant',
        provider: 'fake',
        model: 'fake-model',
        systemPrompt: 'Be brief.',
        tools: ['current_time'],
        ...agent,
      },
    },
    ...extra,
  });
  harnesses.push(harness);
  return harness;
}

async function execute(harness: Harness, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await callRpc(harness.url, harness.tokens.admin, 'agent.execute', params);
  if (response.error !== undefined) throw new Error(`agent.execute failed: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

const key = (peerId: string) => ({ tenantId: 'default', userId: 'alice', channelId: 'test', peerId });

function trajectory(harness: Harness, sessionKey: string): { kind: string; data: Record<string, unknown> }[] {
  const db = new Database(harness.paths.databasePath, { readonly: true });
  try {
    const rows = db.prepare('SELECT kind, data FROM trajectory WHERE session_key = ? ORDER BY seq').all(sessionKey) as {
      kind: string;
      data: string;
    }[];
    return rows.map((row) => ({ kind: row.kind, data: JSON.parse(row.data) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}

describe('agent turns against a real provider protocol', () => {
  it('answers, stores the exchange, sends the system prompt and reports usage and cost', async () => {
    const harness = await gatewayWith();
    llm.script({ text: 'Hello Alice!', usage: { inputTokens: 30, outputTokens: 4 } });
    const result = await execute(harness, { message: 'Hi, I am Alice', sessionKey: key('s1') });
    expect(result).toMatchObject({
      response: 'Hello Alice!',
      finishReason: 'stop',
      tokensUsed: { input: 30, output: 4, total: 34 },
    });

    const body = llm.chatRequests()[0]?.body as { messages: { role: string; content: unknown }[]; tools?: unknown[] };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(body.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(body.tools).toHaveLength(1);

    const history = await callRpc(harness.url, harness.tokens.admin, 'session.export', {
      session_key: 'default:alice:test:s1',
    });
    const messages = (history.result as { messages: { role: string; content: string }[] }).messages;
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Hi, I am Alice'],
      ['assistant', 'Hello Alice!'],
    ]);
  });

  it('keeps the conversation: the second turn sends the first exchange as history', async () => {
    const harness = await gatewayWith();
    llm.script({ text: 'Noted.' }, { text: 'Your name is Bob.' });
    await execute(harness, { message: 'My name is Bob', sessionKey: key('memory') });
    await execute(harness, { message: 'What is my name?', sessionKey: key('memory') });
    const second = llm.chatRequests()[1]?.body as { messages: { role: string }[] };
    expect(second.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('runs a tool the model calls and gives the result back to the model', async () => {
    const harness = await gatewayWith();
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is now.' });
    const result = await execute(harness, { message: 'What time is it?', sessionKey: key('tools') });
    expect(result).toMatchObject({ response: 'It is now.', finishReason: 'stop' });
    const followUp = llm.chatRequests()[1]?.body as {
      messages: { role: string; content?: unknown; tool_call_id?: string }[];
    };
    const toolMessage = followUp.messages.find((message) => message.role === 'tool');
    expect(String(toolMessage?.content)).toMatch(/"iso":"\d{4}-/);
    // The trajectory is written after the reply, by the evidence writer, and learning records the turn's outcome after
    // the turn ended: wait until that last record is there.
    await vi.waitFor(
      () => expect(trajectory(harness, 'default:alice:test:tools').at(-1)?.kind).toBe('learning_outcome'),
      { timeout: 10_000 },
    );
    const records = trajectory(harness, 'default:alice:test:tools');
    expect(records.find((record) => record.kind === 'tool_call')?.data).toMatchObject({
      toolName: 'current_time',
      ok: true,
    });
    expect(records.at(-2)).toMatchObject({
      kind: 'turn_end',
      data: { finishReason: 'stop', endReason: 'completed', steps: 2 },
    });
    expect(records.at(-1)).toMatchObject({ kind: 'learning_outcome', data: { outcome: 'success', sources: ['tool'] } });
    // Counts only: no message text is ever recorded.
    expect(JSON.stringify(records)).not.toContain('What time is it?');
  });

  it('returns a tool failure to the model instead of failing the turn', async () => {
    const harness = await gatewayWith();
    llm.script({ toolCalls: [{ name: 'no_such_tool', arguments: {} }] }, { text: 'Sorry, that failed.' });
    const result = await execute(harness, { message: 'Use a tool', sessionKey: key('toolfail') });
    expect(result).toMatchObject({ finishReason: 'stop', response: 'Sorry, that failed.' });
    const followUp = llm.chatRequests()[1]?.body as { messages: { role: string; content?: unknown }[] };
    expect(String(followUp.messages.find((message) => message.role === 'tool')?.content)).toMatch(
      /unknown tool 'no_such_tool'/,
    );
  });

  it('ends with max_steps when the model keeps calling tools', async () => {
    const harness = await gatewayWith({ maxSteps: 2 });
    llm.script(
      { toolCalls: [{ name: 'current_time', arguments: {} }] },
      { toolCalls: [{ name: 'current_time', arguments: { zone: 'x' } }] },
    );
    const result = await execute(harness, { message: 'loop please', sessionKey: key('steps') });
    expect(result.finishReason).toBe('max_steps');
    expect(llm.chatRequests()).toHaveLength(2);
  });

  it('ends with context_loop when the same call with the same arguments repeats', async () => {
    const harness = await gatewayWith({ maxSteps: 10 });
    const sameCall = { toolCalls: [{ name: 'current_time', arguments: {} }] };
    llm.script(sameCall, sameCall, sameCall, sameCall);
    const result = await execute(harness, { message: 'again and again', sessionKey: key('loop') });
    expect(result.finishReason).toBe('context_loop');
    expect(llm.chatRequests()).toHaveLength(3);
  });

  it('ends with budget_exceeded when the turn uses more tokens than its budget', async () => {
    const harness = await gatewayWith({ budget: { maxTokensPerTurn: 100 } });
    llm.script(
      { toolCalls: [{ name: 'current_time', arguments: {} }], usage: { inputTokens: 90, outputTokens: 20 } },
      { text: 'never sent' },
    );
    const result = await execute(harness, { message: 'expensive', sessionKey: key('budget') });
    expect(result).toMatchObject({ finishReason: 'budget_exceeded', tokensUsed: { total: 110 } });
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('ends with context_exhausted before calling the model when the message cannot fit', async () => {
    const harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'tiny', contextWindow: 300, maxTokens: 100 }],
        },
      },
      agents: { default: { name: 'Tiny', provider: 'fake', model: 'tiny' } },
    });
    harnesses.push(harness);
    const result = await execute(harness, { message: 'x'.repeat(4000), sessionKey: key('huge') });
    expect(result.finishReason).toBe('context_exhausted');
    expect(String(result.error)).toMatch(/context window is 300/);
    expect(llm.chatRequests()).toHaveLength(0);
  });

  it('drops the oldest history to fit the context window and still answers', async () => {
    const harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small', contextWindow: 400, maxTokens: 100 }],
        },
      },
      agents: { default: { name: 'Small', provider: 'fake', model: 'small' } },
    });
    harnesses.push(harness);
    for (let turn = 0; turn < 4; turn += 1)
      await execute(harness, { message: `message ${turn} ${'y'.repeat(300)}`, sessionKey: key('window') });
    const last = llm.chatRequests().at(-1)?.body as { messages: unknown[] };
    // system + the newest message, plus whatever older history still fits: never all 8 earlier messages.
    expect(last.messages.length).toBeLessThan(9);
  });

  it('ends with error when the provider fails, then circuit_open once its breaker is open', async () => {
    const harness = await gatewayWith();
    llm.script({ status: 500 }, { status: 500 }, { status: 500 });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const failed = await execute(harness, { message: 'hello?', sessionKey: key(`down${attempt}`) });
      expect(failed.finishReason).toBe('error');
    }
    const blocked = await execute(harness, { message: 'hello?', sessionKey: key('down-again') });
    expect(blocked.finishReason).toBe('circuit_open');
    expect(llm.chatRequests()).toHaveLength(3);
  });

  it('falls back to the next model when the primary provider is unreachable', async () => {
    const harness = await startGateway({
      providers: {
        dead: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', models: [{ id: 'm' }] },
        fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] },
      },
      agents: { default: { name: 'Resilient', provider: 'dead', model: 'm', fallbackModels: ['fake/fake-model'] } },
    });
    harnesses.push(harness);
    const seen: string[] = [];
    harness.app.events.subscribe((event) => seen.push(event.name));
    llm.script({ text: 'from the fallback' });
    const result = await execute(harness, { message: 'hi', sessionKey: key('fallback') });
    expect(result).toMatchObject({ response: 'from the fallback', finishReason: 'stop' });
    expect(seen).toContain('model:fallback_attempt');
  });

  it('works through the Anthropic Messages protocol too', async () => {
    const harness = await startGateway({
      providers: {
        claude: { type: 'anthropic', baseUrl: `${llm.baseUrl}`, apiKey: 'test-key', models: [{ id: 'claude-test' }] },
      },
      agents: { default: { name: 'Claude', provider: 'claude', model: 'claude-test', tools: ['current_time'] } },
    });
    harnesses.push(harness);
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'Done via Anthropic.' });
    const result = await execute(harness, { message: 'time?', sessionKey: key('anthropic') });
    expect(result).toMatchObject({ response: 'Done via Anthropic.', finishReason: 'stop' });
    expect(llm.chatRequests().every((request) => request.endpoint === 'anthropic-messages')).toBe(true);
  });

  it('without any provider, a turn ends with an error that says how to configure one', async () => {
    const harness = await startGateway({ agents: { default: { name: 'Lonely' } } });
    harnesses.push(harness);
    const result = await execute(harness, { message: 'hello', sessionKey: key('noprovider') });
    expect(result.finishReason).toBe('error');
    expect(String(result.error)).toMatch(/providers:/);
  });

  it('refuses new messages for a suspended agent, accepts them after resume, and fails them after delete', async () => {
    const harness = await gatewayWith();
    const admin = harness.tokens.admin;
    expect((await callRpc(harness.url, admin, 'agents.suspend', { agentId: 'default' })).result).toEqual({
      agentId: 'default',
      suspended: true,
    });
    const refused = await callRpc(harness.url, admin, 'agent.execute', { message: 'hi', sessionKey: key('suspend') });
    expect(refused.error).toMatchObject({ message: expect.stringMatching(/suspended/) });
    expect(llm.chatRequests()).toHaveLength(0);

    expect((await callRpc(harness.url, admin, 'agents.resume', { agentId: 'default' })).result).toEqual({
      agentId: 'default',
      resumed: true,
    });
    expect(await execute(harness, { message: 'hi', sessionKey: key('suspend') })).toMatchObject({
      finishReason: 'stop',
    });

    expect((await callRpc(harness.url, admin, 'agents.delete', { agentId: 'default' })).result).toEqual({
      agentId: 'default',
      deleted: true,
    });
    const gone = await callRpc(harness.url, admin, 'agent.execute', {
      message: 'hi',
      agentId: 'default',
      sessionKey: key('suspend'),
    });
    expect(gone.error).toMatchObject({ message: expect.stringMatching(/not found/) });
    // Its sessions stay in the store.
    const list = await callRpc(harness.url, admin, 'session.list', {});
    expect(
      (list.result as { sessions: { sessionKey: string }[] }).sessions.map((session) => session.sessionKey),
    ).toContain('default:alice:test:suspend');
  });

  it('runs a spawned sub-agent in the background and notifies the requesting client over the WebSocket', async () => {
    const harness = await gatewayWith();
    llm.script({ text: 'sub-agent result', delayMs: 100 });
    const socket = connect(harness.wsUrl, { token: harness.tokens.rpc });
    await socket.opened;
    const spawned = await socket.call('session.spawn', {
      parentKey: 'default:alice:test:parent',
      task: 'research this',
    });
    const { runId } = spawned.result as { runId: string };
    const notification = await socket.waitFor((frame) => frame.method === 'session.completed', 5000);
    expect(notification.params).toMatchObject({ result: expect.objectContaining({ response: 'sub-agent result' }) });
    const status = await socket.call('session.run_status', { run_id: runId });
    expect(status.result).toMatchObject({ runId, status: 'completed', response: 'sub-agent result' });
    expect(TOKEN_IDS.rpc).toBe('rpc-client');
    await socket.close();
  });

  it('marks a run left unfinished by a previous process as orphaned on restart', async () => {
    const first = await gatewayWith();
    const db = new Database(first.paths.databasePath);
    db.prepare(
      `INSERT INTO runs (run_id, root_run_id, parent_key, session_key, agent_id, task, status, requested_by, started_at)
       VALUES ('run-crashed', 'run-crashed', 'default:alice:test:p', 'default:alice:subagent:run-crashed', 'default', 'unfinished task', 'running', 'admin', ?)`,
    ).run(Date.now() - 5000);
    db.close();
    await first.app.close();

    const restarted = await createApp({
      config: first.config,
      paths: first.paths,
      log: createLogger({ level: 'silent' }),
      version: 'test',
      defaultWebDistPath: null,
    });
    try {
      const status = await injectRpc(restarted, first.tokens.admin, 'session.run_status', { run_id: 'run-crashed' });
      expect(status.result).toMatchObject({ runId: 'run-crashed', status: 'orphaned' });
    } finally {
      await restarted.close();
    }
  });
});
