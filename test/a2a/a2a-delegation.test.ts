// A2A delegation end to end: one gateway's agent lists `a2a:remote` and delegates to a second gateway's exposed agent;
// the remote's answer and its task id and state come back as the tool result; an unreachable or oversized remote is a
// bounded tool error (a2a_unavailable) the model sees.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { freePort } from '../support/free-port.js';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';
import { executeTurn, toolResultsOf } from '../support/mcp-gateway.js';

let llm: FakeLlm;
let remote: Harness;
let local: Harness;

const provider = (llmUrl: string) => ({
  fake: {
    type: 'openai-compatible' as const,
    baseUrl: llmUrl,
    models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
  },
});

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  remote = await startGateway({
    providers: provider(llm.baseUrl),
    agents: { expert: { name: 'Expert', provider: 'fake', model: 'fake-model' } },
    a2a: { expose: ['expert'] },
  });
  const closedPort = await freePort();
  local = await startGateway({
    providers: provider(llm.baseUrl),
    agents: {
      default: {
        name: 'Assistant',
        provider: 'fake',
        model: 'fake-model',
        tools: ['a2a:remote', 'a2a:gone', 'a2a:small', 'a2a:missing'],
      },
    },
    a2a: {
      remotes: {
        remote: {
          url: `${remote.url}/a2a/expert/.well-known/agent-card.json`,
          headers: { authorization: `Bearer ${TOKENS.rpc}` },
        },
        gone: { url: `http://127.0.0.1:${closedPort}/.well-known/agent-card.json` },
        small: {
          url: `${remote.url}/a2a/expert/.well-known/agent-card.json`,
          headers: { authorization: `Bearer ${TOKENS.rpc}` },
        },
      },
      limits: { maxRemoteReplyBytes: 5_000 },
    },
  });
}, 60_000);

afterAll(async () => {
  await local?.close();
  await remote?.close();
  await llm?.close();
});

beforeEach(() => llm.reset());

interface Delegated {
  remote: string;
  remoteTaskId: string;
  state: string;
  text: string;
}

describe('A2A delegation', () => {
  it('sends the task to the remote agent and hands its answer, task id and state to the model', async () => {
    llm.script(
      { toolCalls: [{ name: 'a2a_remote', arguments: { message: 'What is 6 x 7?' } }] },
      { text: 'Forty-two, from afar' },
      { text: 'The expert says 42.' },
    );
    const result = await executeTurn(local, 'delegate', 'ask the expert');
    expect(result.response).toBe('The expert says 42.');
    const [toolResult] = toolResultsOf(llm);
    const delegated = JSON.parse(toolResult ?? '{}') as Delegated;
    expect(delegated).toMatchObject({ remote: 'remote', state: 'TASK_STATE_COMPLETED', text: 'Forty-two, from afar' });
    // The remote recorded the task as a run of kind a2a owned by the token the remote entry sends.
    const run = await fetch(`${remote.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.admin}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'run.get', params: { runId: delegated.remoteTaskId } }),
    });
    expect(((await run.json()) as { result: unknown }).result).toMatchObject({
      kind: 'a2a',
      status: 'completed',
      agentId: 'expert',
    });
  });

  it('fails loudly when the remote cannot be reached or is not configured', async () => {
    llm.script(
      {
        toolCalls: [
          { id: 'c1', name: 'a2a_gone', arguments: { message: 'hello?' } },
          { id: 'c2', name: 'a2a_missing', arguments: { message: 'hello?' } },
        ],
      },
      { text: 'Both are unavailable.' },
    );
    await executeTurn(local, 'gone', 'ask the others');
    const results = toolResultsOf(llm);
    expect(results[0]).toMatch(/^Error: A2A remote gone is unavailable/);
    expect(results[1]).toMatch(/^Error: A2A remote missing is unavailable: no remote named missing/);
  });

  it('turns an oversized remote answer into a bounded tool error', async () => {
    llm.script(
      { toolCalls: [{ name: 'a2a_small', arguments: { message: 'write a lot' } }] },
      { text: 'x'.repeat(8_000), chunks: 1 },
      { text: 'That was too much.' },
    );
    await executeTurn(local, 'big', 'ask for a lot');
    expect(toolResultsOf(llm)[0]).toMatch(/more than 5000 bytes \(a2a\.limits\.maxRemoteReplyBytes\)/);
  });
});
