// MCP tools in agent turns through a started gateway: the fake LLM calls tools of the stdio and Streamable HTTP
// fixture servers, and the model gets their results, bounded like any tool's.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { Harness } from '../support/gateway-harness.js';
import { startMcpHttpServer, type McpHttpFixture } from '../support/mcp-http-server.js';
import {
  adminCall,
  executeTurn,
  sessionKeyOf,
  serversListed,
  startMcpGateway,
  stdioFixture,
  toolResultsOf,
  toolsOffered,
} from '../support/mcp-gateway.js';

let llm: FakeLlm;
let remote: McpHttpFixture;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  remote = await startMcpHttpServer();
  harness = await startMcpGateway(llm, {
    mcp: {
      servers: {
        files: stdioFixture({ tools: ['echo', 'pid', 'big'] }),
        remote: { transport: 'http', url: remote.url, timeoutMs: 1_500 },
      },
      maxResultBytes: 4_096,
    },
    tools: ['current_time', 'mcp:files', 'mcp:remote/echo', 'mcp:remote/slow'],
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await remote?.close();
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

describe('MCP tools in turns', () => {
  it("offers each server's allowed tools as <server>__<tool> with the server's schema and description", async () => {
    llm.script({ text: 'nothing to do' });
    await executeTurn(harness, 'offer', 'hello');
    const offered = toolsOffered(llm);
    expect(offered.map((tool) => tool.name).sort()).toEqual([
      'current_time',
      'files__big',
      'files__echo',
      'files__pid',
      'remote__echo',
      'remote__slow',
    ]);
    expect(offered.find((tool) => tool.name === 'files__echo')).toMatchObject({
      description: 'Answers the text it is given',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
  });

  it("runs a stdio server's tool and an HTTP server's tool, and the model receives their results", async () => {
    llm.script(
      {
        toolCalls: [
          { name: 'files__echo', arguments: { text: 'from stdio' } },
          { name: 'remote__echo', arguments: { text: 'over http' } },
        ],
      },
      { text: 'done' },
    );
    expect(await executeTurn(harness, 'both', 'echo twice')).toMatchObject({ finishReason: 'stop', response: 'done' });
    expect(toolResultsOf(llm)).toEqual(['from stdio', 'over http']);
    const report = (await adminCallExplain('both')) as { toolStats: Record<string, unknown> };
    expect(report.toolStats).toMatchObject({
      files__echo: { ok: 1, failed: 0 },
      remote__echo: { ok: 1, failed: 0 },
    });
  });

  it('restarts a killed stdio server on a later turn', async () => {
    llm.script({ toolCalls: [{ name: 'files__pid', arguments: {} }] }, { text: 'first' });
    await executeTurn(harness, 'restart', 'which pid');
    const firstPid = Number(toolResultsOf(llm)[0]);
    expect(isAlive(firstPid)).toBe(true);
    process.kill(firstPid, 'SIGKILL');
    await vi.waitFor(async () => {
      expect((await serversListed(harness)).find((server) => server.name === 'files')?.state).toBe('failed');
    });
    llm.script({ toolCalls: [{ name: 'files__pid', arguments: {} }] }, { text: 'second' });
    expect(await executeTurn(harness, 'restart', 'which pid now')).toMatchObject({ finishReason: 'stop' });
    const secondPid = Number(toolResultsOf(llm).at(-1));
    expect(secondPid).toBeGreaterThan(0);
    expect(secondPid).not.toBe(firstPid);
    expect((await serversListed(harness)).find((server) => server.name === 'files')).toMatchObject({
      state: 'ready',
      tools: 3,
    });
  });

  it('turns an oversized result and a slow server into bounded tool errors, and the turn goes on', async () => {
    llm.script(
      {
        toolCalls: [
          { name: 'files__big', arguments: { chars: 50_000 } },
          { name: 'remote__slow', arguments: { ms: 60_000 } },
        ],
      },
      { text: 'both failed' },
    );
    expect(await executeTurn(harness, 'bounds', 'big and slow')).toMatchObject({ finishReason: 'stop' });
    const [big, slow] = toolResultsOf(llm);
    expect(big).toMatch(/^Error: MCP tool big of server files answered \d+ bytes, over the limit of 4096 bytes/);
    expect(big?.length).toBeLessThan(500);
    expect(slow).toMatch(/^Error: MCP tool slow of server remote did not answer within 1500 ms/);
    const report = (await adminCallExplain('bounds')) as { failures: { toolName: string; errorKind: string }[] };
    expect(report.failures.map(({ toolName, errorKind }) => ({ toolName, errorKind })).sort(byName)).toEqual([
      { toolName: 'files__big', errorKind: 'failed' },
      { toolName: 'remote__slow', errorKind: 'timeout' },
    ]);
  });
});

const byName = (a: { toolName: string }, b: { toolName: string }) => a.toolName.localeCompare(b.toolName);

const adminCallExplain = (peerId: string) => adminCall(harness, 'obs.explain', { sessionKey: sessionKeyOf(peerId) });
