// Learning outcomes from real turns (started gateway over the fake LLM, SQLite): the tool rule, the correction
// heuristic, session.feedback by the owner and by another token, memory attribution of a failed turn, and the learning
// block and outcome_unresolved cause of obs.explain.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const RPC_B = 'rpc-b-secret-0123456789abcdefghijklmnopq';

describe('learning outcomes in turns', () => {
  let llm: FakeLlm;
  let harness: Harness;

  const keyOf = (userId: string) => ({ tenantId: 'default', userId, channelId: 'chat' });
  const stringKey = (userId: string) => `default:${userId}:chat`;
  async function execute(userId: string, message: string, token = harness.tokens.rpc) {
    const response = await callRpc(harness.url, token, 'agent.execute', { message, sessionKey: keyOf(userId) });
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as { response: string; finishReason: string };
  }
  const explain = async (userId: string) =>
    (await callRpc(harness.url, harness.tokens.admin, 'obs.explain', { sessionKey: stringKey(userId) }))
      .result as IncidentReport;
  /** The session's learning block once it satisfies `ready` (outcomes are written off the turn's path). */
  async function learningOf(userId: string, ready: (report: IncidentReport) => boolean) {
    await expect.poll(async () => ready(await explain(userId)), { timeout: 10_000, interval: 50 }).toBe(true);
    return explain(userId);
  }
  const toolTurn = (ok: boolean) =>
    llm.script(
      { toolCalls: [{ name: 'current_time', arguments: ok ? {} : { zone: 'nowhere' } }] },
      { text: ok ? 'It is noon.' : 'I could not tell the time.' },
    );

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 16000, maxTokens: 512 }],
        },
      },
      agents: {
        default: {
          name: 'Assistant',
          provider: 'fake',
          model: 'fake-model',
          systemPrompt: 'Be brief.',
          tools: ['current_time', 'memory_store', 'memory_search'],
        },
      },
      extraTokens: [{ id: 'rpc-b', secret: RPC_B, scopes: ['rpc'] }],
    });
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('records success for a turn whose tool calls succeeded, with the learning block filled', async () => {
    toolTurn(true);
    await execute('sam', 'What time is it in Berlin?');
    const report = await learningOf('sam', (r) => r.learning?.outcome !== undefined);
    expect(report.learning).toEqual({
      outcomeResolved: true,
      outcome: 'success',
      sources: ['tool'],
      skillsUsed: 0,
      skillFailures: 0,
      synthesisAbstained: false,
    });
  });

  it('records failure for a turn whose tool call failed and was not retried', async () => {
    toolTurn(false);
    await execute('fay', 'What time is it in Lima?');
    const report = await learningOf('fay', (r) => r.learning?.outcome !== undefined);
    expect(report.learning).toMatchObject({ outcomeResolved: true, outcome: 'failure', sources: ['tool'] });
  });

  it('leaves a turn without any source unresolved: outcome_unresolved is the likely root cause', async () => {
    llm.script({ text: 'Hello!' });
    await execute('una', 'Hello there');
    const report = await learningOf('una', (r) => r.learning !== undefined);
    expect(report.learning).toEqual({
      outcomeResolved: false,
      sources: [],
      skillsUsed: 0,
      skillFailures: 0,
      synthesisAbstained: false,
    });
    expect(report.likelyRootCause.code).toBe('outcome_unresolved');
  });

  it("makes the previous turn corrected when the user's next message says it was wrong", async () => {
    toolTurn(true);
    await execute('cora', 'What time is it in Tokyo?');
    await learningOf('cora', (r) => r.learning?.outcome === 'success');
    llm.script({ text: 'Sorry about that.' });
    await execute('cora', "No, that's wrong: Tokyo is nine hours ahead");
    const report = await learningOf('cora', (r) => r.learning?.outcome === 'corrected');
    expect(report.learning).toMatchObject({
      outcomeResolved: true,
      outcome: 'corrected',
      sources: ['tool', 'correction'],
    });
  });

  it('leaves the previous turn as it was when the next message is no correction', async () => {
    toolTurn(true);
    await execute('nick', 'What time is it in Oslo?');
    await learningOf('nick', (r) => r.learning?.outcome === 'success');
    // The second turn fails on its own tools, so its record resolves: a correction would have been applied before it.
    toolTurn(false);
    await execute('nick', 'Thanks! Now do the same for Madrid');
    const report = await learningOf('nick', (r) => r.learning?.outcome === 'failure');
    expect(report.learning?.sources).toEqual(['tool']);
  });

  it("takes session.feedback from the session's owner, and refuses another token's without changing anything", async () => {
    toolTurn(true);
    await execute('finn', 'What time is it in Rome?');
    await learningOf('finn', (r) => r.learning?.outcome === 'success');

    const refused = await callRpc(harness.url, RPC_B, 'session.feedback', {
      sessionKey: stringKey('finn'),
      outcome: 'failure',
    });
    expect(refused.error).toMatchObject({ data: { kind: 'forbidden' } });
    expect((await explain('finn')).learning).toMatchObject({ outcome: 'success', sources: ['tool'] });

    const accepted = await callRpc(harness.url, harness.tokens.rpc, 'session.feedback', {
      sessionKey: stringKey('finn'),
      outcome: 'failure',
      note: 'the clock was an hour off',
    });
    expect(accepted.result).toMatchObject({ sessionKey: stringKey('finn'), outcome: 'failure' });
    expect((accepted.result as { traceId: string }).traceId).toMatch(/.+/);
    const report = await explain('finn');
    expect(report.learning).toMatchObject({ outcome: 'failure', sources: ['tool', 'explicit'] });
    expect(JSON.stringify(report)).not.toContain('an hour off');
  });

  it('answers not_found for feedback on a session with no turn', async () => {
    const response = await callRpc(harness.url, harness.tokens.rpc, 'session.feedback', {
      sessionKey: stringKey('nobody'),
      outcome: 'success',
    });
    expect(response.error).toMatchObject({ data: { kind: 'not_found' } });
  });

  it('demotes the memories recalled into a failed turn and counts them in the learning block', async () => {
    llm.script(
      { toolCalls: [{ name: 'memory_store', arguments: { content: 'The cat of Mia is called Tom' } }] },
      { text: 'Noted.' },
    );
    await execute('mia', 'Remember that my cat is called Tom');
    toolTurn(false);
    await execute('mia2', 'What is the cat of Mia called?');
    const report = await learningOf('mia2', (r) => r.learning?.failuresAttributed !== undefined);
    expect(report.learning).toEqual({
      outcomeResolved: true,
      outcome: 'failure',
      sources: ['tool'],
      skillsUsed: 0,
      skillFailures: 0,
      synthesisAbstained: false,
      skillsPromoted: 0,
      skillsDemoted: 0,
      failuresAttributed: 1,
    });
    const browsed = (await callRpc(harness.url, harness.tokens.admin, 'memory.browse', { limit: 10 })).result as {
      entries: { content: string; status: string }[];
    };
    expect(browsed.entries.find((entry) => entry.content === 'The cat of Mia is called Tom')?.status).toBe('demoted');
    await harness.app.observability.flush();
    const db = new Database(harness.paths.databasePath, { readonly: true });
    try {
      const rows = db
        .prepare(
          "SELECT agent_id AS agentId, data FROM health_signals WHERE kind = 'learning.memory_failure_attributed'",
        )
        .all() as { agentId: string; data: string }[];
      expect(rows.map((row) => [row.agentId, JSON.parse(row.data)])).toEqual([
        ['default', { agentId: 'default', count: 1, timestamp: expect.any(Number) }],
      ]);
    } finally {
      db.close();
    }
  });
});

describe('the learning judge', () => {
  let llm: FakeLlm;
  let harness: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 16000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model', systemPrompt: 'Be brief.' } },
      learning: { judge: { model: 'fake/fake-model' } },
    });
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('judges a turn no other source resolved, after the turn, from its message and answer', async () => {
    llm.script({ text: 'Paris is the capital of France.' }, { text: 'success' });
    const response = await callRpc(harness.url, harness.tokens.rpc, 'agent.execute', {
      message: 'What is the capital of France?',
      sessionKey: { tenantId: 'default', userId: 'jude', channelId: 'chat' },
    });
    expect(response.error).toBeUndefined();
    const explain = async () =>
      (await callRpc(harness.url, harness.tokens.admin, 'obs.explain', { sessionKey: 'default:jude:chat' }))
        .result as IncidentReport;
    await expect
      .poll(async () => (await explain()).learning?.outcome, { timeout: 10_000, interval: 50 })
      .toBe('success');
    expect((await explain()).learning).toMatchObject({ outcomeResolved: true, sources: ['judge'] });
    const judged = llm.chatRequests().at(-1)?.body as { messages: { role: string; content: unknown }[] };
    const sent = JSON.stringify(judged.messages);
    expect(sent).toContain('What is the capital of France?');
    expect(sent).toContain('Paris is the capital of France.');
  });
  it("judges one turn of an agent at a time: a turn finishing while the agent's judge is busy is not judged", async () => {
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    llm.script({ text: 'Rome.' }, { text: 'failure', heldUntil: held }, { text: 'Oslo.' });
    const ask = (userId: string, message: string) =>
      callRpc(harness.url, harness.tokens.rpc, 'agent.execute', {
        message,
        sessionKey: { tenantId: 'default', userId, channelId: 'chat' },
      });
    const explainOf = async (userId: string) =>
      (await callRpc(harness.url, harness.tokens.admin, 'obs.explain', { sessionKey: `default:${userId}:chat` }))
        .result as IncidentReport;
    const before = llm.chatRequests().length;
    await ask('busy1', 'What is the capital of Italy?');
    await expect.poll(() => llm.chatRequests().length - before, { timeout: 10_000, interval: 20 }).toBe(2);
    await ask('busy2', 'What is the capital of Norway?');
    release();
    await expect
      .poll(async () => (await explainOf('busy1')).learning?.outcome, { timeout: 10_000, interval: 50 })
      .toBe('failure');
    expect(llm.chatRequests().length - before).toBe(3);
    expect((await explainOf('busy2')).learning).toMatchObject({ outcomeResolved: false, sources: [] });
  });
});
