// graph.* methods and the pipeline_* tools through a started gateway: refusals naming the path with nothing stored,
// scopes, a model authoring and starting pipelines, and the pipeline_authored rows obs.fleet.health reads.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { createGraphPort } from '../../src/store/shared/index.js';
import { createSqliteRunPort, openDatabase, sqliteStoreDb } from '../../src/store/sqlite/index.js';
import { callRpc } from '../support/http-client.js';
import { toolResultsOf } from '../support/mcp-gateway.js';

const RPC_TWO = 'rpc-two-secret-0123456789abcdefghijklm';

let llm: FakeLlm;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['small-model'] });
  harness = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'small-model', contextWindow: 16_000, maxTokens: 512, tier: 'small' }],
      },
    },
    agents: {
      default: {
        name: 'Assistant',
        provider: 'fake',
        model: 'small-model',
        tools: ['pipeline_define', 'pipeline_run', 'current_time'],
      },
      other: { name: 'Other', provider: 'fake', model: 'small-model', tools: ['current_time', 'session_spawn'] },
    },
    gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
    // A third token that may run graphs: maxRunsPerGraph is reached before any one token's cap.
    extraTokens: [{ id: 'rpc-two', secret: RPC_TWO, scopes: ['rpc'] }],
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

const tick = { id: 'tick', type: 'tool', tool: 'current_time', args: {} };

/** One turn of the rpc token's session whose model calls `tool` with `args`; what the tool answered. */
async function modelCalls(tool: string, args: Record<string, unknown>): Promise<string> {
  llm.script({ toolCalls: [{ name: tool, arguments: args }] }, { text: 'done' });
  await rpc(harness.tokens.rpc, 'agent.execute', {
    message: 'build it',
    sessionKey: { tenantId: 'default', userId: TOKEN_IDS.rpc, channelId: 'test', peerId: tool },
  });
  return toolResultsOf(llm).at(-1) ?? '';
}

const fleetFinding = async () =>
  (
    (await rpc(harness.tokens.admin, 'obs.fleet.health')) as {
      findings: { code: string; count: number; detail: string }[];
    }
  ).findings.find((finding) => finding.code === 'pipeline_authoring');

describe('graph methods', () => {
  it('refuses a cyclic definition with -32602 naming the path, and stores nothing', async () => {
    const refused = await callRpc(harness.url, harness.tokens.admin, 'graph.define', {
      definition: {
        name: 'loop',
        nodes: [
          { ...tick, id: 'a', needs: ['b'] },
          { ...tick, id: 'b', needs: ['a'] },
        ],
      },
    });
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringMatching(/nodes\[\d\]\.needs/) });
    const missing = await callRpc(harness.url, harness.tokens.rpc, 'graph.get', { name: 'loop' });
    expect(missing.error).toMatchObject({ data: { kind: 'not_found' } });
  });

  it('lets admins define and delete, rpc tokens list, get and run', async () => {
    const denied = await callRpc(harness.url, harness.tokens.rpc, 'graph.define', {
      definition: { name: 'tick', nodes: [tick] },
    });
    expect(denied.error).toMatchObject({ code: -32603 });
    await rpc(harness.tokens.admin, 'graph.define', {
      definition: { name: 'tick', description: 'the time', nodes: [tick] },
    });
    const listed = (await rpc(harness.tokens.rpc, 'graph.list')) as { graphs: { name: string; nodes: number }[] };
    expect(listed.graphs).toContainEqual(expect.objectContaining({ name: 'tick', nodes: 1, description: 'the time' }));
    expect(await rpc(harness.tokens.rpc, 'graph.get', { name: 'tick' })).toMatchObject({
      name: 'tick',
      createdBy: TOKEN_IDS.admin,
    });
    const { runId } = (await rpc(harness.tokens.rpc, 'graph.run', { name: 'tick' })) as { runId: string };
    await expect
      .poll(async () => ((await rpc(harness.tokens.rpc, 'graph.status', { runId })) as { state: string }).state)
      .toBe('completed');
    const runs = (await rpc(harness.tokens.rpc, 'graph.runs', { name: 'tick' })) as { runs: { runId: string }[] };
    expect(runs.runs.map((run) => run.runId)).toContain(runId);
    expect(await rpc(harness.tokens.admin, 'graph.delete', { name: 'tick' })).toEqual({ name: 'tick', deleted: true });
  });

  it('caps the runs of one graph over all tokens (maxRunsPerGraph), naming the limit', async () => {
    await rpc(harness.tokens.admin, 'graph.define', {
      definition: { name: 'popular', nodes: [{ id: 'wait', type: 'approval', summary: 'go?' }] },
    });
    const held: { token: string; runId: string }[] = [];
    try {
      for (const token of [harness.tokens.rpc, harness.tokens.admin])
        for (let index = 0; index < 8; index += 1)
          held.push({
            token,
            runId: ((await rpc(token, 'graph.run', { name: 'popular' })) as { runId: string }).runId,
          });
      const refused = await callRpc(harness.url, RPC_TWO, 'graph.run', { name: 'popular' });
      expect(refused.error).toMatchObject({
        data: { kind: 'rate_limited' },
        message: 'Too many graph runs running at once (GRAPH_LIMITS.maxRunsPerGraph: 16)',
      });
    } finally {
      for (const { token, runId } of held) await rpc(token, 'graph.cancel', { runId });
    }
    // Once they ended, the graph has room again.
    const { runId } = (await rpc(RPC_TWO, 'graph.run', { name: 'popular' })) as { runId: string };
    await rpc(RPC_TWO, 'graph.cancel', { runId });
  });

  it('counts runs another instance has running on the shared store against maxRunsPerGraph and maxRunsPerToken', async () => {
    await rpc(harness.tokens.admin, 'graph.define', {
      definition: { name: 'shared', nodes: [{ id: 'wait', type: 'approval', summary: 'go?' }] },
    });
    // Another gateway on the same database: its graph runs and their live run records, written through the ports.
    const db = openDatabase({ path: harness.paths.databasePath });
    try {
      const graphs = createGraphPort(sqliteStoreDb(db));
      const runs = createSqliteRunPort(db);
      const now = Date.now();
      const elsewhere = async (runId: string, ownerId: string) => {
        await graphs.createRun({
          runId,
          name: 'shared',
          ownerId,
          state: 'running',
          vars: {},
          createdAt: now,
          updatedAt: now,
        });
        await runs.create({
          runId,
          rootRunId: runId,
          kind: 'graph',
          parentKey: null,
          sessionKey: `default:${ownerId}:graph:${runId}`,
          agentId: 'default',
          task: 'graph shared',
          status: 'running',
          requestedBy: ownerId,
          startedAt: now,
          completedAt: null,
          response: null,
          tokensUsed: null,
          costUsd: null,
          error: null,
          ownerInstance: 'another-instance',
          heartbeatAt: now,
        });
      };
      for (let index = 0; index < 8; index += 1) await elsewhere(`elsewhere-own-${index}`, TOKEN_IDS.rpc);
      const byToken = await callRpc(harness.url, harness.tokens.rpc, 'graph.run', { name: 'shared' });
      expect(byToken.error).toMatchObject({
        data: { kind: 'rate_limited' },
        message: expect.stringContaining('maxRunsPerToken'),
      });
      for (let index = 0; index < 8; index += 1) await elsewhere(`elsewhere-other-${index}`, 'someone-else');
      const byGraph = await callRpc(harness.url, harness.tokens.admin, 'graph.run', { name: 'shared' });
      expect(byGraph.error).toMatchObject({
        data: { kind: 'rate_limited' },
        message: expect.stringContaining('maxRunsPerGraph'),
      });
      // Once the other instance's runs end, the caps have room again.
      for (const run of await graphs.runningRuns()) await graphs.updateRun(run.runId, { state: 'completed' });
      const { runId } = (await rpc(harness.tokens.admin, 'graph.run', { name: 'shared' })) as { runId: string };
      await rpc(harness.tokens.admin, 'graph.cancel', { runId });
    } finally {
      db.close();
    }
  });

  it('caps runs per token (maxRunsPerToken) and the items a map fans out over (maxMapItems)', async () => {
    await rpc(harness.tokens.admin, 'graph.define', {
      definition: { name: 'hold', nodes: [{ id: 'wait', type: 'approval', summary: 'go?' }] },
    });
    const held: string[] = [];
    try {
      for (let index = 0; index < 8; index += 1)
        held.push(((await rpc(harness.tokens.rpc, 'graph.run', { name: 'hold' })) as { runId: string }).runId);
      const refused = await callRpc(harness.url, harness.tokens.rpc, 'graph.run', { name: 'hold' });
      expect(refused.error).toMatchObject({
        data: { kind: 'rate_limited' },
        message: expect.stringContaining('maxRunsPerToken'),
      });
    } finally {
      for (const runId of held) await rpc(harness.tokens.rpc, 'graph.cancel', { runId });
    }

    await rpc(harness.tokens.admin, 'graph.define', {
      definition: {
        name: 'wide',
        vars: { items: { type: 'array' } },
        nodes: [
          {
            id: 'each',
            type: 'map',
            over: '{{vars.items}}',
            concurrency: 2,
            node: { type: 'tool', tool: 'current_time', args: {} },
          },
        ],
      },
    });
    const items = Array.from({ length: 101 }, (_item, index) => index);
    const { runId } = (await rpc(harness.tokens.rpc, 'graph.run', { name: 'wide', vars: { items } })) as {
      runId: string;
    };
    await expect
      .poll(async () => (await rpc(harness.tokens.rpc, 'graph.status', { runId })) as { state: string })
      .toMatchObject({
        state: 'failed',
        nodes: [{ id: 'each', state: 'failed', error: expect.stringContaining('maxMapItems') }],
      });
    const two = (await rpc(harness.tokens.rpc, 'graph.run', { name: 'wide', vars: { items: [1, 2, 3] } })) as {
      runId: string;
    };
    await expect
      .poll(async () => (await rpc(harness.tokens.rpc, 'graph.status', { runId: two.runId })) as { state: string })
      .toMatchObject({
        state: 'completed',
        nodes: [{ id: 'each', state: 'completed', output: [expect.anything(), expect.anything(), expect.anything()] }],
      });
  });

  it('lets a model author a pipeline of its own tools and start it; each authoring is a pipeline_authored row', async () => {
    expect(await fleetFinding()).toBeUndefined();
    const refused = await modelCalls('pipeline_define', {
      definition: { name: 'sneaky', nodes: [{ id: 'x', type: 'tool', tool: 'session_spawn', args: {} }] },
    });
    expect(refused).toMatch(/^Error: .*nodes\[0\]\.tool/);
    await expect
      .poll(async () => (await fleetFinding())?.detail, { timeout: 10_000 })
      .toContain('small: 1 of 1 failed validation');

    const stored = await modelCalls('pipeline_define', { definition: { name: 'timer', nodes: [tick] } });
    expect(JSON.parse(stored)).toEqual({ name: 'timer', nodes: 1 });
    await expect
      .poll(async () => (await fleetFinding())?.detail, { timeout: 10_000 })
      .toContain('small: 1 of 2 failed validation');
    expect(await rpc(harness.tokens.rpc, 'graph.get', { name: 'timer' })).toMatchObject({ createdBy: TOKEN_IDS.rpc });

    const started = JSON.parse(await modelCalls('pipeline_run', { name: 'timer' })) as { runId: string };
    await expect
      .poll(async () => (await rpc(harness.tokens.rpc, 'graph.status', { runId: started.runId })) as { state: string })
      .toMatchObject({ state: 'completed', ownerId: TOKEN_IDS.rpc });
  });

  it("refuses a model's pipeline naming another agent (nodes[1].agentId), stores nothing and records it invalid", async () => {
    const refused = await modelCalls('pipeline_define', {
      definition: {
        name: 'borrowed',
        nodes: [tick, { id: 'ask', type: 'agent', agentId: 'other', message: 'spawn for me', needs: ['tick'] }],
      },
    });
    expect(refused).toMatch(/^Error: .*nodes\[1\]\.agentId/);
    const missing = await callRpc(harness.url, harness.tokens.rpc, 'graph.get', { name: 'borrowed' });
    expect(missing.error).toMatchObject({ data: { kind: 'not_found' } });
    await expect
      .poll(async () => (await fleetFinding())?.detail, { timeout: 10_000 })
      .toContain('small: 2 of 3 failed validation');

    const own = await modelCalls('pipeline_define', {
      definition: { name: 'self', nodes: [{ id: 'ask', type: 'agent', agentId: 'default', message: 'hi' }] },
    });
    expect(JSON.parse(own)).toEqual({ name: 'self', nodes: 1 });

    const admin = await callRpc(harness.url, harness.tokens.admin, 'graph.define', {
      definition: { name: 'operator', nodes: [{ id: 'ask', type: 'agent', agentId: 'other', message: 'hi' }] },
    });
    expect(admin.result).toMatchObject({ name: 'operator' });
  });
});
