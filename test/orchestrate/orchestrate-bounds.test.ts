// The orchestrate tool's bounds through a started gateway: capped input, runs per session and in flight per agent
// (a refused run is a tool error the model sees), and no script child outliving the gateway's shutdown.
import { execFileSync } from 'node:child_process';
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

let llm: FakeLlm;
let harness: Harness;
let isClosed = false;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  harness = await startMcpGateway(llm, {
    mcp: { servers: { files: stdioFixture({ tools: ['echo'] }) } },
    tools: ['orchestrate', 'current_time', 'mcp:files'],
    requireApproval: [{ tool: 'files__echo', args: { text: 'secret*' } }],
    // The tests poll run.list and admin.approval.pending while turns wait: more than the default 100 calls a minute.
    gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
    orchestrate: { maxRunsPerSession: 2, maxRunsInFlightPerAgent: 1 },
  });
}, 30_000);

afterAll(async () => {
  if (!isClosed) await harness?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
});

const pendingIn = async (peerId: string) =>
  (
    (await adminCall(harness, 'admin.approval.pending')) as { requests: { id: string; sessionKey: string }[] }
  ).requests.filter((request) => request.sessionKey === sessionKeyOf(peerId));

/** Starts a turn whose script waits on an approval-gated call; resolves once it waits. Its final reply is the caller's to script. */
async function heldTurn(peerId: string) {
  const script = 'return await tools.files__echo({ text: "secret held" });';
  llm.script({ toolCalls: [{ name: 'orchestrate', arguments: { script, timeoutMs: 60_000 } }] });
  const turn = executeTurn(harness, peerId, 'run it');
  await expect.poll(() => pendingIn(peerId), { timeout: 15_000, interval: 200 }).toHaveLength(1);
  return { turn };
}

/** The script children (pre-started or running) of this process, which is the gateway's. */
function scriptChildren(): string[] {
  const listing = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return listing.split('\n').filter((line) => line.includes('script-child'));
}

describe('orchestrate bounds', () => {
  it('pre-starts a script child at gateway start when an agent may orchestrate', async () => {
    await expect.poll(scriptChildren, { timeout: 10_000 }).toHaveLength(1);
  });

  it('refuses more capabilities than the cap as invalid input, and starts no run', async () => {
    const capabilities = Array.from({ length: 65 }, (_, index) => `t${index}`);
    llm.script(
      { toolCalls: [{ name: 'orchestrate', arguments: { script: 'return 1;', capabilities } }] },
      { text: 'done' },
    );
    await executeTurn(harness, 'too-many', 'run it');
    expect(toolResultsOf(llm)).toEqual([expect.stringMatching(/^Error: invalid input for orchestrate: capabilities:/)]);
    expect(await adminCall(harness, 'run.list', { kind: 'orchestrate' })).toEqual({ runs: [] });
  });

  it('refuses runs past orchestrate.maxRunsPerSession with a tool error', async () => {
    llm.script(
      {
        toolCalls: [1, 2, 3].map((n) => ({ name: 'orchestrate', arguments: { script: `return ${n};` } })),
      },
      { text: 'done' },
    );
    await executeTurn(harness, 'per-session', 'run three');
    const results = toolResultsOf(llm);
    expect(results.slice(0, 2).map((text) => (JSON.parse(text) as { result: number }).result)).toEqual([1, 2]);
    expect(results[2]).toMatch(
      /^Error: This session already ran 2 orchestrate scripts \(orchestrate\.maxRunsPerSession\)/,
    );
  });

  it('refuses a run past orchestrate.maxRunsInFlightPerAgent while another runs', async () => {
    const held = await heldTurn('in-flight-a');
    llm.script({ toolCalls: [{ name: 'orchestrate', arguments: { script: 'return 1;' } }] }, { text: 'done' });
    await executeTurn(harness, 'in-flight-b', 'run it');
    expect(toolResultsOf(llm).at(-1)).toMatch(
      /already runs 1 orchestrate scripts \(orchestrate\.maxRunsInFlightPerAgent\)/,
    );
    llm.script({ text: 'done' });
    const [request] = await pendingIn('in-flight-a');
    await adminCall(harness, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect(await held.turn).toMatchObject({ finishReason: 'stop' });
  });

  it('kills every script child when the gateway shuts down mid-run', async () => {
    const held = await heldTurn('shutdown');
    expect(scriptChildren().length).toBeGreaterThanOrEqual(1);
    isClosed = true;
    await harness.close();
    await held.turn.catch(() => undefined);
    await expect.poll(scriptChildren, { timeout: 10_000 }).toEqual([]);
  });
});
