// The gateway's agents reached by A2A clients (the SDK's client, and raw JSON-RPC over HTTP): cards, blocking and
// streaming SendMessage, GetTask/ListTasks paging, CancelTask mid-run, approvals as input-required, and refusals.
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { cardUrlOf, helperGatewayOptions, sdkClientOf, sendParams } from './a2a-client.js';

let llm: FakeLlm;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  const { providers, agents } = helperGatewayOptions(llm.baseUrl);
  harness = await startGateway({
    providers,
    agents: { ...agents, hidden: { name: 'Hidden', provider: 'fake', model: 'fake-model' } },
    a2a: { expose: ['helper'], limits: { maxPageSize: 2, maxMessageParts: 2 } },
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await llm?.close();
});

beforeEach(() => llm.reset());

const cardUrl = () => cardUrlOf(harness.url, 'helper');
const sdkClient = (token: string = TOKENS.rpc) => sdkClientOf(cardUrl(), token);

async function rawCall(body: unknown, headers: Record<string, string> = {}, token = TOKENS.rpc) {
  const response = await fetch(`${harness.url}/a2a/helper`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('A2A server', () => {
  it('serves the agent card and the gateway card listing the exposed agents', async () => {
    const card = (await (await fetch(cardUrl())).json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      name: 'Helper',
      supportedInterfaces: [{ url: `${harness.url}/a2a/helper`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    });
    const gateway = (await (await fetch(`${harness.url}/.well-known/agent-card.json`)).json()) as {
      skills: { id: string }[];
    };
    expect(gateway.skills.map((skill) => skill.id)).toEqual(['helper']);
    expect((await fetch(`${harness.url}/a2a/hidden/.well-known/agent-card.json`)).status).toBe(404);
    const client = await sdkClient();
    expect((await client.getAgentCard()).name).toBe('Helper');
  });

  it('answers a blocking SendMessage with the completed task, then GetTask finds it', async () => {
    llm.script({ text: 'Hello from the helper' });
    const client = await sdkClient();
    const result = await client.sendMessage(sendParams('hi'));
    expect('id' in result && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    if (!('id' in result)) throw new Error('expected a task');
    expect(result.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'Hello from the helper' });
    const again = await client.getTask({ tenant: '', id: result.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The task is a gateway run of kind a2a, visible to run control.
    const run = await callRpc(harness.url, TOKENS.admin, 'run.get', { runId: result.id });
    expect(run.result).toMatchObject({ runId: result.id, kind: 'a2a', status: 'completed', agentId: 'helper' });
    // Another token's task is not found.
    const other = await rawCall(
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: result.id } },
      { 'A2A-Version': '1.0' },
      TOKENS.admin,
    );
    expect(other.body).toMatchObject({ error: { code: -32001 } });
  });

  it('streams status and artifact updates', async () => {
    llm.script({ text: 'one two three', chunks: 3 });
    const client = await sdkClient();
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(sendParams('stream please'))) events.push(event);
    const cases = events.map((event) => event.payload?.$case);
    expect(cases[0]).toBe('task');
    const states = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? [event.payload.value.status?.state] : [],
    );
    expect(states).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const chunks = events.flatMap((event) => (event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : []));
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.at(-1)?.lastChunk).toBe(true);
    const text = chunks
      .map((chunk) =>
        chunk.artifact?.parts[0]?.content?.$case === 'text' ? chunk.artifact.parts[0].content.value : '',
      )
      .join('');
    expect(text).toBe('one two three');
  });

  it('pages ListTasks with cursors, at most a2a.limits.maxPageSize per page', async () => {
    const client = await sdkClient();
    for (let index = 0; index < 3; index += 1) {
      llm.script({ text: `answer ${index}` });
      await client.sendMessage(sendParams(`question ${index}`));
    }
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await client.listTasks({
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 50,
        pageToken,
        statusTimestampAfter: undefined,
      });
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map((task) => task.id));
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken !== '' && pages < 20);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(3);
  });

  it('cancels a task mid-run', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    llm.script({ text: 'too late', heldUntil: held });
    const client = await sdkClient();
    const task = await client.sendMessage(sendParams('slow one', true));
    if (!('id' in task)) throw new Error('expected a task');
    await expect.poll(() => llm.chatRequests().length).toBe(1);
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    release();
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const run = await callRpc(harness.url, TOKENS.admin, 'run.get', { runId: task.id });
    expect(run.result).toMatchObject({ status: 'revoked' });
  });

  it('surfaces an approval wait as input-required and goes on once approved', async () => {
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is now.' });
    const client = await sdkClient();
    const blocked = await client.sendMessage(sendParams('what time is it?'));
    if (!('id' in blocked)) throw new Error('expected a task');
    expect(blocked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const pending = (await callRpc(harness.url, TOKENS.admin, 'admin.approval.pending', {})).result as {
      requests: { id: string }[];
    };
    expect(pending.requests).toHaveLength(1);
    await callRpc(harness.url, TOKENS.admin, 'admin.approval.resolve', { id: pending.requests[0]?.id, approved: true });
    await expect
      .poll(async () => (await client.getTask({ tenant: '', id: blocked.id })).status?.state, { timeout: 10_000 })
      .toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses an api-only token, a bad or missing A2A-Version, 0.3 method names and too many parts', async () => {
    const request = { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } };
    expect((await rawCall(request, { 'A2A-Version': '1.0' }, TOKENS.api)).status).toBe(403);
    expect((await rawCall(request, { 'A2A-Version': '9.9' })).body).toMatchObject({ id: 7, error: { code: -32009 } });
    expect((await rawCall(request)).body).toMatchObject({ id: 7, error: { code: -32009 } });
    const legacy = { jsonrpc: '2.0', id: 8, method: 'message/send', params: {} };
    expect((await rawCall(legacy, { 'A2A-Version': '1.0' })).body).toMatchObject({ id: 8, error: { code: -32601 } });
    const part = { text: 'x' };
    const many = {
      jsonrpc: '2.0',
      id: 9,
      method: 'SendMessage',
      params: { message: { messageId: 'many', role: 'ROLE_USER', parts: [part, part, part] } },
    };
    const refused = await rawCall(many, { 'A2A-Version': '1.0' });
    expect(refused.body).toMatchObject({ id: 9, error: { code: -32602 } });
    expect(JSON.stringify(refused.body)).toContain('maxMessageParts');
  });
});
