// Graph runs end to end: a started gateway over the fake LLM runs a defined graph (agent → map → tool → approval),
// retries a failing node, and stops a run cancelled mid-way, killed or revoked; graph.status and /api/events show
// every node's state; an agent node's templated session key and a failed run's learning outcome.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame, type SseReader } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

interface NodeView {
  id: string;
  state: string;
  attempts?: number;
  output?: unknown;
  error?: string;
}

interface StatusView {
  runId: string;
  name: string;
  state: string;
  nodes: NodeView[];
  output?: unknown;
  error?: string;
}

let llm: FakeLlm;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  harness = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 16_000, maxTokens: 512 }],
      },
    },
    agents: {
      default: {
        name: 'Assistant',
        provider: 'fake',
        model: 'fake-model',
        tools: [],
        // Tool nodes run as the default agent, under its approval rules.
        requireApproval: [{ tool: 'current_time', args: { gated: '*' } }],
      },
    },
    // The tests poll graph.status while runs go on: more than the default 100 calls a minute.
    gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
});

async function rpc(token: string, method: string, params: unknown = {}): Promise<unknown> {
  const response = await callRpc(harness.url, token, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result;
}

const admin = (method: string, params?: unknown) => rpc(harness.tokens.admin, method, params);
const client = (method: string, params?: unknown) => rpc(harness.tokens.rpc, method, params);
const status = async (runId: string) => (await client('graph.status', { runId })) as StatusView;
const nodeOf = (view: StatusView, id: string) => view.nodes.find((node) => node.id === id);

async function untilState(runId: string, state: string): Promise<StatusView> {
  await expect.poll(async () => (await status(runId)).state, { timeout: 15_000, interval: 50 }).toBe(state);
  return status(runId);
}

const pendingGraphApprovals = async (runId: string) =>
  (
    (await admin('admin.approval.pending')) as { requests: { id: string; rootRunId?: string; args: unknown }[] }
  ).requests.filter((request) => request.rootRunId === runId);

/** The graph:* frames of one run, as (event, nodeId?, status) triples, read until its graph:completed. */
async function graphEvents(events: SseReader, runId: string): Promise<string[]> {
  const payloadOf = (frame: ReadFrame) => JSON.parse(frame.data ?? '{}') as Record<string, unknown>;
  const frames = await events.until(
    (frame) => frame.event === 'graph:completed' && payloadOf(frame).runId === runId,
    15_000,
  );
  return frames
    .filter((frame) => frame.event?.startsWith('graph:') === true && payloadOf(frame).runId === runId)
    .map((frame) => {
      const payload = payloadOf(frame);
      return [frame.event, payload.nodeId, payload.status].filter((part) => part !== undefined).join(' ');
    });
}

describe('graph runs', () => {
  it('runs agent → map over its list → tool → approval to completion, with every state change on /api/events', async () => {
    await admin('graph.define', {
      definition: {
        name: 'research',
        vars: { topic: { type: 'string', default: 'cats' } },
        nodes: [
          { id: 'plan', type: 'agent', agentId: 'default', message: 'Subtopics of {{vars.topic}} as a JSON array' },
          {
            id: 'draft',
            type: 'map',
            needs: ['plan'],
            over: '{{nodes.plan.output}}',
            concurrency: 2,
            node: { type: 'agent', agentId: 'default', message: 'Draft {{item}}' },
          },
          { id: 'clock', type: 'tool', needs: ['draft'], tool: 'current_time', args: {} },
          { id: 'publish', type: 'approval', needs: ['clock'], summary: 'Publish the drafts on {{vars.topic}}?' },
        ],
        output: '{{nodes.draft.output}}',
      },
    });
    // The plan's answer is the list the map fans out over; each draft gets the fake LLM's echo.
    llm.script({ text: '["whiskers", "purring"]' });
    const events = await openSse(`${harness.url}/api/events?token=${harness.tokens.rpc}`);
    await events.next();
    try {
      const { runId } = (await client('graph.run', { name: 'research', vars: { topic: 'cats' } })) as {
        runId: string;
      };
      await expect.poll(async () => nodeOf(await status(runId), 'publish')?.state, { timeout: 15_000 }).toBe('waiting');
      const [request] = await pendingGraphApprovals(runId);
      expect(JSON.stringify(request?.args)).toContain('Publish the drafts on cats?');
      await admin('admin.approval.resolve', { id: request?.id, approved: true });

      const done = await untilState(runId, 'completed');
      expect(done.output).toEqual(['Echo: Draft whiskers', 'Echo: Draft purring']);
      expect(done.nodes.map((node) => [node.id, node.state])).toEqual([
        ['plan', 'completed'],
        ['draft', 'completed'],
        ['clock', 'completed'],
        ['publish', 'completed'],
      ]);
      expect(nodeOf(done, 'plan')?.output).toEqual(['whiskers', 'purring']);
      expect(nodeOf(done, 'clock')?.output).toMatchObject({ epochMs: expect.any(Number) });

      expect(await graphEvents(events, runId)).toEqual([
        'graph:started',
        'graph:node_updated plan running',
        'graph:node_updated plan completed',
        'graph:node_updated draft running',
        'graph:node_updated draft completed',
        'graph:node_updated clock running',
        'graph:node_updated clock completed',
        'graph:node_updated publish running',
        'graph:node_updated publish waiting',
        'graph:node_updated publish completed',
        'graph:completed completed',
      ]);
      // The graph is one run tree (kind graph) that run.* shows.
      expect(await admin('run.get', { runId })).toMatchObject({ kind: 'graph', status: 'completed' });
      // The run's result is the pipeline outcome of each turn its agent nodes ran.
      const learningOf = async (sessionKey: string) =>
        ((await admin('obs.explain', { sessionKey, depth: 'full' })) as { learning?: unknown }).learning;
      await expect
        .poll(() => learningOf(`default:${TOKEN_IDS.rpc}:graph:${runId}.plan`), { timeout: 10_000 })
        .toMatchObject({ outcome: 'success', sources: expect.arrayContaining(['pipeline']) });
      await expect
        .poll(() => learningOf(`default:${TOKEN_IDS.rpc}:graph:${runId}.draft.1`), { timeout: 10_000 })
        .toMatchObject({ outcome: 'success', sources: expect.arrayContaining(['pipeline']) });
    } finally {
      events.close();
    }
  });

  it('retries a failing node and fails the run once its attempts are spent, without running what needs it', async () => {
    await admin('graph.define', {
      definition: {
        name: 'flaky',
        vars: {},
        nodes: [
          { id: 'ask', type: 'agent', agentId: 'default', message: 'hello', retries: 1 },
          { id: 'bad', type: 'tool', needs: ['ask'], tool: 'current_time', args: { unexpected: true }, retries: 2 },
          { id: 'after', type: 'tool', needs: ['bad'], tool: 'current_time', args: {} },
        ],
      },
    });
    // The first attempt of `ask` fails upstream (400 is not retried by the provider); the second answers.
    llm.script({ status: 400, errorMessage: 'bad request' }, { text: 'hi there' });
    const { runId } = (await client('graph.run', { name: 'flaky' })) as { runId: string };
    const failed = await untilState(runId, 'failed');
    expect(nodeOf(failed, 'ask')).toMatchObject({ state: 'completed', attempts: 2, output: 'hi there' });
    expect(nodeOf(failed, 'bad')).toMatchObject({
      state: 'failed',
      attempts: 3,
      error: expect.stringContaining('invalid input'),
    });
    expect(nodeOf(failed, 'after')?.state).toBe('pending');
    expect(failed.error).toContain('bad');
  });

  it('runs nodes that are ready together: two independent agent nodes are both in flight before either answers', async () => {
    await admin('graph.define', {
      definition: {
        name: 'fanout',
        vars: {},
        nodes: [
          { id: 'left', type: 'agent', agentId: 'default', message: 'left' },
          { id: 'right', type: 'agent', agentId: 'default', message: 'right' },
          { id: 'join', type: 'tool', needs: ['left', 'right'], tool: 'current_time', args: {} },
        ],
      },
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    llm.script({ text: 'one', heldUntil: held }, { text: 'two', heldUntil: held });
    try {
      const { runId } = (await client('graph.run', { name: 'fanout' })) as { runId: string };
      await expect.poll(() => llm.chatRequests().length, { timeout: 15_000 }).toBe(2);
      expect(nodeOf(await status(runId), 'join')?.state).toBe('pending');
      release();
      const done = await untilState(runId, 'completed');
      expect(done.nodes.map((node) => node.state)).toEqual(['completed', 'completed', 'completed']);
    } finally {
      release();
    }
  });

  it("bounds each attempt by the node's timeoutMs", async () => {
    await admin('graph.define', {
      definition: {
        name: 'timeboxed',
        vars: {},
        nodes: [{ id: 'slow', type: 'agent', agentId: 'default', message: 'hurry', timeoutMs: 300, retries: 1 }],
      },
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    llm.script({ text: 'late', heldUntil: held }, { text: 'late again', heldUntil: held });
    try {
      const { runId } = (await client('graph.run', { name: 'timeboxed' })) as { runId: string };
      const failed = await untilState(runId, 'failed');
      expect(nodeOf(failed, 'slow')).toMatchObject({
        state: 'failed',
        attempts: 2,
        error: 'timed out after 300 ms',
      });
    } finally {
      release();
    }
  });

  it('skips a node whose condition is false, and what needs only skipped nodes', async () => {
    await admin('graph.define', {
      definition: {
        name: 'branchy',
        vars: { go: { type: 'boolean', default: false } },
        nodes: [
          { id: 'gate', type: 'tool', tool: 'current_time', args: {}, when: 'vars.go' },
          { id: 'next', type: 'tool', needs: ['gate'], tool: 'current_time', args: {} },
          { id: 'other', type: 'tool', tool: 'current_time', args: {}, when: '!vars.go' },
        ],
      },
    });
    const { runId } = (await client('graph.run', { name: 'branchy' })) as { runId: string };
    const done = await untilState(runId, 'completed');
    expect(done.nodes.map((node) => [node.id, node.state])).toEqual([
      ['gate', 'skipped'],
      ['next', 'skipped'],
      ['other', 'completed'],
    ]);
  });

  it('cancels a run mid-way: the running node stops, nothing after it starts, the run is cancelled', async () => {
    await admin('graph.define', {
      definition: {
        name: 'slow',
        vars: {},
        nodes: [
          { id: 'think', type: 'agent', agentId: 'default', message: 'take your time' },
          { id: 'then', type: 'tool', needs: ['think'], tool: 'current_time', args: {} },
        ],
      },
    });
    let release: () => void = () => {};
    llm.script({ text: 'too late', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const events = await openSse(`${harness.url}/api/events?token=${harness.tokens.rpc}`);
    await events.next();
    try {
      const { runId } = (await client('graph.run', { name: 'slow' })) as { runId: string };
      await expect.poll(() => llm.chatRequests().length, { timeout: 15_000 }).toBe(1);
      expect(await client('graph.cancel', { runId })).toMatchObject({ runId });
      const cancelled = await untilState(runId, 'cancelled');
      expect(nodeOf(cancelled, 'think')).toMatchObject({ state: 'failed', error: expect.stringContaining('cancel') });
      expect(nodeOf(cancelled, 'then')?.state).toBe('pending');
      expect((await graphEvents(events, runId)).at(-1)).toBe('graph:completed cancelled');
    } finally {
      release();
      events.close();
    }
  });

  it('holds a tool node an approval rule gates until an operator decides; a denial fails it', async () => {
    await admin('graph.define', {
      definition: {
        name: 'gated',
        vars: {},
        nodes: [{ id: 'call', type: 'tool', tool: 'current_time', args: { gated: 'yes' } }],
      },
    });
    const { runId } = (await client('graph.run', { name: 'gated' })) as { runId: string };
    await expect.poll(async () => nodeOf(await status(runId), 'call')?.state, { timeout: 15_000 }).toBe('waiting');
    const [request] = await pendingGraphApprovals(runId);
    await admin('admin.approval.resolve', { id: request?.id, approved: false, reason: 'not now' });
    const failed = await untilState(runId, 'failed');
    expect(nodeOf(failed, 'call')).toMatchObject({ state: 'failed', error: expect.stringContaining('not now') });
  });

  it('stops a graph whose run tree run.kill hits: the graph is cancelled and its run revoked', async () => {
    await admin('graph.define', {
      definition: {
        name: 'killed',
        vars: {},
        nodes: [{ id: 'wait', type: 'approval', summary: 'go?' }],
      },
    });
    const { runId } = (await client('graph.run', { name: 'killed' })) as { runId: string };
    await expect.poll(async () => nodeOf(await status(runId), 'wait')?.state, { timeout: 15_000 }).toBe('waiting');
    await admin('run.kill', { runId });
    const cancelled = await untilState(runId, 'cancelled');
    expect(nodeOf(cancelled, 'wait')?.state).toBe('failed');
    expect(await admin('run.get', { runId })).toMatchObject({ kind: 'graph', status: 'revoked' });
    expect(await pendingGraphApprovals(runId)).toEqual([]);
  });

  it('stops a graph whose run tree lease.revoke hits: no further node starts, and the graph and its run say revoked', async () => {
    await admin('graph.define', {
      definition: {
        name: 'revoked',
        vars: {},
        nodes: [
          { id: 'wait', type: 'approval', summary: 'go?' },
          { id: 'then', type: 'tool', needs: ['wait'], tool: 'current_time', args: {} },
        ],
      },
    });
    const { runId } = (await client('graph.run', { name: 'revoked' })) as { runId: string };
    await expect.poll(async () => nodeOf(await status(runId), 'wait')?.state, { timeout: 15_000 }).toBe('waiting');
    await admin('lease.revoke', { runId });
    const stopped = await untilState(runId, 'cancelled');
    expect(stopped.error).toBe('The run was revoked (lease.revoke)');
    expect(nodeOf(stopped, 'wait')?.state).toBe('failed');
    expect(nodeOf(stopped, 'then')?.state).toBe('pending');
    expect(await admin('run.get', { runId })).toMatchObject({ kind: 'graph', status: 'revoked' });
    expect(await pendingGraphApprovals(runId)).toEqual([]);
  });

  it("runs an agent node in the session its templated sessionKey names: each run's vars pick its own session", async () => {
    await admin('graph.define', {
      definition: {
        name: 'notes',
        vars: { topic: { type: 'string' } },
        nodes: [
          {
            id: 'note',
            type: 'agent',
            agentId: 'default',
            message: 'note on {{vars.topic}}',
            sessionKey: `default:${TOKEN_IDS.rpc}:notes:{{vars.topic}}`,
          },
        ],
        output: '{{nodes.note.output}}',
      },
    });
    llm.script({ text: 'llama note' }, { text: 'alpaca note' });
    const first = (await client('graph.run', { name: 'notes', vars: { topic: 'llamas' } })) as { runId: string };
    expect(await untilState(first.runId, 'completed')).toMatchObject({ output: 'llama note' });
    const second = (await client('graph.run', { name: 'notes', vars: { topic: 'alpacas' } })) as { runId: string };
    expect(await untilState(second.runId, 'completed')).toMatchObject({ output: 'alpaca note' });
    // Another session: the second turn's model call carries none of the first run's conversation.
    const texts = (index: number) => JSON.stringify(llm.chatRequests()[index]?.body ?? null);
    expect(texts(1)).toContain('note on alpacas');
    expect(texts(1)).not.toContain('llamas');
    const listed = (await admin('session.list', { limit: 500 })) as { sessions: { sessionKey: string }[] };
    expect(listed.sessions.map((session) => session.sessionKey)).toEqual(
      expect.arrayContaining([`default:${TOKEN_IDS.rpc}:notes:llamas`, `default:${TOKEN_IDS.rpc}:notes:alpacas`]),
    );
  });

  it("records a failed run's result as the failure pipeline outcome of its agent nodes' turns", async () => {
    await admin('graph.define', {
      definition: {
        name: 'fails-late',
        vars: {},
        nodes: [
          { id: 'ask', type: 'agent', agentId: 'default', message: 'start' },
          { id: 'bad', type: 'tool', needs: ['ask'], tool: 'current_time', args: { unexpected: true } },
        ],
      },
    });
    llm.script({ text: 'started' });
    const { runId } = (await client('graph.run', { name: 'fails-late' })) as { runId: string };
    const failed = await untilState(runId, 'failed');
    expect(nodeOf(failed, 'ask')?.state).toBe('completed');
    const learningOf = async (sessionKey: string) =>
      ((await admin('obs.explain', { sessionKey, depth: 'full' })) as { learning?: unknown }).learning;
    await expect
      .poll(() => learningOf(`default:${TOKEN_IDS.rpc}:graph:${runId}.ask`), { timeout: 10_000 })
      .toMatchObject({ outcome: 'failure', sources: expect.arrayContaining(['pipeline']) });
  });

  it("answers forbidden for another token's run and not_found for an unknown one", async () => {
    await admin('graph.define', {
      definition: { name: 'mine', vars: {}, nodes: [{ id: 't', type: 'tool', tool: 'current_time', args: {} }] },
    });
    const { runId } = (await admin('graph.run', { name: 'mine' })) as { runId: string };
    const theirs = await callRpc(harness.url, harness.tokens.rpc, 'graph.status', { runId });
    expect(theirs.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
    const unknown = await callRpc(harness.url, harness.tokens.rpc, 'graph.status', { runId: 'no-such-run' });
    expect(unknown.error).toMatchObject({ data: { kind: 'not_found' } });
  });
});
