// mcp.servers hot-applied through config.patch on a started gateway: an added server is usable at once, a removed
// one's child is killed and its tools leave the next turn, a changed one reconnects; stopping the gateway kills all.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { Harness } from '../support/gateway-harness.js';
import {
  adminCall,
  executeTurn,
  serversListed,
  startMcpGateway,
  stdioFixture,
  toolResultsOf,
  toolsOffered,
} from '../support/mcp-gateway.js';

let llm: FakeLlm;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  harness = await startMcpGateway(llm, {
    mcp: { servers: { files: stdioFixture({ tools: ['pid'] }) } },
    tools: ['mcp:files', 'mcp:extra'],
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A turn in which the model calls `tool` (a pid tool); the pid it answered. */
async function pidThrough(tool: string, peerId: string): Promise<number> {
  llm.script({ toolCalls: [{ name: tool, arguments: {} }] }, { text: 'ok' });
  await executeTurn(harness, peerId, `pid of ${tool}`);
  const pid = Number(toolResultsOf(llm).at(-1));
  expect(pid).toBeGreaterThan(0);
  return pid;
}

const offeredNames = () =>
  toolsOffered(llm, 0)
    .map((tool) => tool.name)
    .sort();

describe('mcp.servers hot-applied', () => {
  it('kills a removed server, drops its tools, and makes an added one usable without a restart', async () => {
    const filesPid = await pidThrough('files__pid', 'live');
    expect(offeredNames()).toEqual(['extra__unavailable', 'files__pid']);

    await adminCall(harness, 'config.patch', {
      mcp: { servers: { files: null, extra: stdioFixture({ tools: ['pid', 'echo'] }) } },
    });
    await vi.waitFor(() => expect(isAlive(filesPid)).toBe(false), { timeout: 10_000 });
    expect((await serversListed(harness)).map((server) => server.name)).toEqual(['extra']);

    llm.reset();
    const extraPid = await pidThrough('extra__pid', 'live');
    expect(offeredNames()).toEqual(['extra__echo', 'extra__pid', 'files__unavailable']);
    expect(extraPid).not.toBe(filesPid);
  });

  it('reconnects a changed server with its new config and ends the old child', async () => {
    const before = await pidThrough('extra__pid', 'changed');
    await adminCall(harness, 'config.patch', { mcp: { servers: { extra: { tools: ['pid'] } } } });
    await vi.waitFor(() => expect(isAlive(before)).toBe(false), { timeout: 10_000 });
    llm.reset();
    const after = await pidThrough('extra__pid', 'changed');
    expect(after).not.toBe(before);
    expect(offeredNames()).toEqual(['extra__pid', 'files__unavailable']);
  });

  it('kills every child when the gateway stops', async () => {
    const pid = await pidThrough('extra__pid', 'stop');
    expect(isAlive(pid)).toBe(true);
    await harness.close();
    expect(isAlive(pid)).toBe(false);
  });
});
