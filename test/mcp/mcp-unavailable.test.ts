// An MCP server an agent lists that cannot be reached fails loudly: the turn offers a tool failing with
// mcp_unavailable, the evidence and fleet health show it, mcp.servers.list shows the server failed.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { freePort } from '../support/free-port.js';
import type { Harness } from '../support/gateway-harness.js';
import { captureLogs, type LogCapture } from '../support/log-capture.js';
import { startMcpHttpServer, type McpHttpFixture } from '../support/mcp-http-server.js';
import {
  adminCall,
  executeTurn,
  serversListed,
  sessionKeyOf,
  startMcpGateway,
  toolResultsOf,
  toolsOffered,
} from '../support/mcp-gateway.js';

let llm: FakeLlm;
let flaky: McpHttpFixture;
let harness: Harness;
let logs: LogCapture;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  flaky = await startMcpHttpServer();
  logs = captureLogs('warn');
  harness = await startMcpGateway(llm, {
    mcp: {
      servers: {
        down: { transport: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` },
        flaky: { transport: 'http', url: flaky.url },
        off: { transport: 'http', url: flaky.url, enabled: false },
      },
    },
    tools: ['current_time', 'mcp:down', 'mcp:ghost', 'mcp:off', 'mcp:flaky/echo', 'mcp:flaky/nope'],
    log: logs.log,
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await flaky?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
});

const explain = async (peerId: string) =>
  (await adminCall(harness, 'obs.explain', { sessionKey: sessionKeyOf(peerId) })) as IncidentReport;

describe('an MCP server that cannot be reached', () => {
  it('warns at start about mcp: entries of servers that are not configured, and only those', () => {
    const warning = logs.lines.find((line) => line.includes('agent names tool sources that are not configured'));
    expect(JSON.parse(warning ?? '{}')).toMatchObject({ agentId: 'default', tools: ['mcp:ghost'] });
    expect(logs.lines.filter((line) => line.includes('agent names tools'))).toEqual([]);
  });

  it('is offered as a tool failing with mcp_unavailable and the reason, never left out', async () => {
    llm.script({ toolCalls: [{ name: 'down__unavailable', arguments: {} }] }, { text: 'the files are unavailable' });
    expect(await executeTurn(harness, 'down', 'list my files')).toMatchObject({ finishReason: 'stop' });
    const offered = toolsOffered(llm, 0);
    expect(offered.map((tool) => tool.name).sort()).toEqual([
      'current_time',
      'down__unavailable',
      'flaky__echo',
      'flaky__nope',
      'ghost__unavailable',
      'off__unavailable',
    ]);
    const description = (name: string) => offered.find((tool) => tool.name === name)?.description;
    expect(description('down__unavailable')).toMatch(/^Unavailable: MCP server down is unavailable: /);
    expect(description('ghost__unavailable')).toMatch(/no server named ghost is configured under mcp\.servers/);
    expect(description('off__unavailable')).toMatch(/MCP server off is disabled/);
    expect(description('flaky__nope')).toMatch(/MCP server flaky offers no tool nope/);
    expect(toolResultsOf(llm)).toEqual([expect.stringMatching(/^Error: MCP server down is unavailable: /)]);

    const report = await explain('down');
    expect(report.failures).toEqual([
      expect.objectContaining({ toolName: 'down__unavailable', errorKind: 'mcp_unavailable' }),
    ]);
    const down = (await serversListed(harness)).find((server) => server.name === 'down');
    expect(down).toMatchObject({ state: 'failed', tools: 0 });
    expect(down?.lastError).toMatch(/^MCP server down is unavailable: /);
  });

  it("names the unreachable server as the turn's root cause even when the model never called it", async () => {
    llm.script({ text: 'hello without tools' });
    expect(await executeTurn(harness, 'quiet', 'just say hello')).toMatchObject({ finishReason: 'stop' });
    const report = await explain('quiet');
    expect(report.failures).toEqual([]);
    expect(report.likelyRootCause.code).toBe('mcp_unavailable');
    expect(report.likelyRootCause.detail).toMatch(/^down__unavailable, ghost__unavailable.*\(mcp_unavailable\)/);
  });

  it('records a health signal that obs.fleet.health shows as an mcp_unavailable finding', async () => {
    const fleet = (await adminCall(harness, 'obs.fleet.health', {})) as FleetHealthReport;
    const finding = fleet.findings.find((candidate) => candidate.code === 'mcp_unavailable');
    expect(finding).toMatchObject({ severity: 'warning' });
    expect(finding?.detail).toMatch(/down/);
  });

  it('fails a call as mcp_unavailable when the server went away after the turn listed its tools', async () => {
    llm.script({ toolCalls: [{ name: 'flaky__echo', arguments: { text: 'still there' } }] }, { text: 'ok' });
    await executeTurn(harness, 'flaky', 'echo');
    expect(toolResultsOf(llm)).toEqual(['still there']);
    await flaky.close();
    llm.script({ toolCalls: [{ name: 'flaky__echo', arguments: { text: 'gone?' } }] }, { text: 'it went away' });
    expect(await executeTurn(harness, 'flaky', 'echo again')).toMatchObject({ finishReason: 'stop' });
    expect(toolResultsOf(llm)).toEqual([
      'still there',
      expect.stringMatching(/^Error: MCP server flaky is unavailable/),
    ]);
    const report = await explain('flaky');
    expect(report.failures).toEqual([
      expect.objectContaining({ toolName: 'flaky__echo', errorKind: 'mcp_unavailable' }),
    ]);
    expect((await serversListed(harness)).find((server) => server.name === 'flaky')?.state).toBe('failed');
  });
});
