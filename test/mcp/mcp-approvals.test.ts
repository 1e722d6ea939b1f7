// An approval rule on an MCP tool (by its <server>__<tool> name) holds the call until an operator decides, as for a
// built-in tool: approved, the server runs it; denied, the model gets the denial and the server is never asked.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { Harness } from '../support/gateway-harness.js';
import {
  adminCall,
  executeTurn,
  sessionKeyOf,
  startMcpGateway,
  stdioFixture,
  toolResultsOf,
} from '../support/mcp-gateway.js';

interface PendingEntry {
  id: string;
  agentId: string;
  sessionKey: string;
  toolName: string;
  args: unknown;
}

let llm: FakeLlm;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  harness = await startMcpGateway(llm, {
    mcp: { servers: { files: stdioFixture({ tools: ['echo'] }) } },
    tools: ['mcp:files'],
    requireApproval: [{ tool: 'files__echo', args: { text: 'secret*' } }],
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
});

async function pending(): Promise<PendingEntry[]> {
  return ((await adminCall(harness, 'admin.approval.pending')) as { requests: PendingEntry[] }).requests;
}

async function heldCall(peerId: string, text: string) {
  llm.script({ toolCalls: [{ name: 'files__echo', arguments: { text } }] }, { text: 'after the decision' });
  const turn = executeTurn(harness, peerId, 'echo something');
  await expect.poll(async () => (await pending()).length, { timeout: 10_000 }).toBe(1);
  const [request] = await pending();
  expect(request).toMatchObject({
    agentId: 'default',
    sessionKey: sessionKeyOf(peerId),
    toolName: 'files__echo',
    args: { text },
  });
  // Held: the model has not been called again while the call waits.
  expect(llm.chatRequests()).toHaveLength(1);
  return { turn, id: request?.id ?? '' };
}

describe('approvals on MCP tools', () => {
  it('holds a matching call until approved, then the server runs it', async () => {
    const { turn, id } = await heldCall('approve', 'secret plans');
    await adminCall(harness, 'admin.approval.resolve', { id, approved: true });
    expect(await turn).toMatchObject({ finishReason: 'stop' });
    expect(toolResultsOf(llm)).toEqual(['secret plans']);
  });

  it('answers a denied call as denied without asking the server', async () => {
    const { turn, id } = await heldCall('deny', 'secret keys');
    await adminCall(harness, 'admin.approval.resolve', { id, approved: false, reason: 'not today' });
    expect(await turn).toMatchObject({ finishReason: 'stop' });
    expect(toolResultsOf(llm)).toEqual([expect.stringMatching(/^Error: files__echo was denied/)]);
  });

  it('lets a call the rule does not match run at once', async () => {
    llm.script({ toolCalls: [{ name: 'files__echo', arguments: { text: 'public' } }] }, { text: 'done' });
    await executeTurn(harness, 'open', 'echo public');
    expect(toolResultsOf(llm)).toEqual(['public']);
    expect(await pending()).toEqual([]);
  });
});
