// MCP both ways, one call at a time (issue 34): a turn calling an MCP fixture server's tool against the same turn with a
// built-in tool plus the fixture's own answer time, and ask_<agent> over POST /mcp against agent.execute over /rpc.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callRpc } from '../test/support/http-client.js';
import { startFakeLlm, type FakeLlm } from '../test/support/fake-llm-server.js';
import { isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { addedMsFigure, median, type FigureRow } from './lib/figures.js';
import { startGateway, type BenchGateway } from './lib/gateway.js';
import { waitForQuietMachine } from './lib/machine-load.js';

const STDIO_SCRIPT = fileURLToPath(new URL('../test/support/mcp-stdio-server.ts', import.meta.url));
const FIXTURE = { transport: 'stdio' as const, command: process.execPath, args: ['--import', 'tsx', STDIO_SCRIPT] };
/** Issue 34: each path may add at most this over its reference, in ms. */
const MAX_ADDED_MS = 1;
/** Calls per side per round, after WARMUP_CALLS unmeasured ones. */
const CALLS = 200;
const WARMUP_CALLS = 30;
/** Every call gets a session of its own, so no side pays for a history that grows over the run. */
let sessionCount = 0;
const freshPeer = () => String((sessionCount += 1));

const SURFACES = {
  tool: 'mcp: tool call through a turn (reference: built-in tool turn + fixture call)',
  ask: 'mcp: ask_default over /mcp (reference: agent.execute over /rpc)',
} as const;

/**
 * The median time of each call over `CALLS` sequential runs of each, after `WARMUP_CALLS` unmeasured ones; the calls
 * take turns, so a warmer or busier moment of the machine falls on both sides alike.
 */
async function alternatingMediansMs(calls: readonly (() => Promise<unknown>)[]): Promise<number[]> {
  for (let index = 0; index < WARMUP_CALLS; index += 1) for (const call of calls) await call();
  const times = calls.map((): number[] => []);
  for (let index = 0; index < CALLS; index += 1) {
    for (const [position, call] of calls.entries()) {
      const startedAt = performance.now();
      await call();
      times[position]?.push(performance.now() - startedAt);
    }
  }
  return times.map(median);
}

async function startWorld(): Promise<{ gateway: BenchGateway; llm: FakeLlm; close(): Promise<void> }> {
  const llm = await startFakeLlm({ models: ['fake-model'], maxRecordedRequests: 8 });
  const provider = { type: 'openai-compatible' as const, baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] };
  const agent = { provider: 'fake', model: 'fake-model' } as const;
  try {
    const gateway = await startGateway({
      config: {
        providers: { fake: provider },
        agents: {
          default: { name: 'Bench', ...agent },
          builtin: { name: 'Built-in tool', ...agent, tools: ['current_time'] },
          mcp: { name: 'MCP tool', ...agent, tools: ['mcp:fixture/echo'] },
        },
        mcp: { servers: { fixture: FIXTURE } },
      },
    });
    return {
      gateway,
      llm,
      async close() {
        await gateway.close();
        await llm.close();
      },
    };
  } catch (error) {
    await llm.close();
    throw error;
  }
}

/** One turn whose model asks for `tool` once, then answers. */
function turnWithTool(
  world: { gateway: BenchGateway; llm: FakeLlm },
  agentId: string,
  tool: string,
  input: Record<string, unknown>,
) {
  return async () => {
    world.llm.script({ toolCalls: [{ name: tool, arguments: input }] }, { text: 'done' });
    const reply = await callRpc(world.gateway.url, world.gateway.token, 'agent.execute', {
      agentId,
      message: 'go',
      sessionKey: { tenantId: 'default', userId: 'bench', channelId: 'rpc', peerId: freshPeer() },
    });
    if ('error' in reply) throw new Error(`agent.execute failed: ${JSON.stringify(reply.error)}`);
  };
}

/** The fixture server's own time for echo: a direct SDK client over stdio to a separate fixture process. */
async function fixtureCallMs(): Promise<number> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ ...FIXTURE, args: [...FIXTURE.args], stderr: 'ignore' }));
  try {
    const [echoMs = Number.NaN] = await alternatingMediansMs([
      () => client.callTool({ name: 'echo', arguments: { text: 'bench' } }),
    ]);
    return echoMs;
  } finally {
    await client.close();
  }
}

async function measureRound(options: BenchOptions) {
  const quiet = await waitForQuietMachine({ maxWaitMs: 10_000 });
  if (!quiet.isQuiet)
    options.log(`  (other processes use ${Math.round(quiet.lastShare * 100)}% of the machine; measuring anyway)`);
  const fixtureMs = await fixtureCallMs();
  const world = await startWorld();
  const mcp = new Client({ name: 'bench', version: '1' });
  try {
    const [builtinMs = Number.NaN, mcpToolMs = Number.NaN] = await alternatingMediansMs([
      turnWithTool(world, 'builtin', 'current_time', {}),
      turnWithTool(world, 'mcp', 'fixture__echo', { text: 'bench' }),
    ]);
    const headers = { authorization: `Bearer ${world.gateway.token}` };
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${world.gateway.url}/mcp`), { requestInit: { headers } }),
    );
    const [executeMs = Number.NaN, askMs = Number.NaN] = await alternatingMediansMs([
      async () => {
        const reply = await callRpc(world.gateway.url, world.gateway.token, 'agent.execute', {
          message: 'hi',
          sessionKey: { tenantId: 'default', userId: 'bench', channelId: 'rpc', peerId: freshPeer() },
        });
        if ('error' in reply) throw new Error(`agent.execute failed: ${JSON.stringify(reply.error)}`);
      },
      async () => {
        const result = await mcp.callTool({
          name: 'ask_default',
          arguments: { message: 'hi', sessionKey: `default:bench:mcp:${freshPeer()}` },
        });
        if (result.isError === true) throw new Error(`ask_default failed: ${JSON.stringify(result.content)}`);
      },
    ]);
    const figures = { fixtureMs, builtinMs, mcpToolMs, executeMs, askMs };
    options.log(
      `  fixture echo ${fixtureMs.toFixed(2)} ms, turn with current_time ${builtinMs.toFixed(2)} ms, ` +
        `turn with fixture__echo ${mcpToolMs.toFixed(2)} ms, agent.execute ${executeMs.toFixed(2)} ms, ` +
        `ask_default ${askMs.toFixed(2)} ms`,
    );
    return figures;
  } finally {
    await mcp.close();
    await world.close();
  }
}

export async function run(options: BenchOptions): Promise<FigureRow[]> {
  if (!Object.values(SURFACES).some((surface) => wantsSurface(options, surface))) return [];
  options.log(`mcp: ${CALLS} sequential calls per side per round, ${options.rounds} rounds`);
  const rounds = [];
  for (let round = 1; round <= options.rounds; round += 1) rounds.push(await measureRound(options));
  const row = (surface: string, baseline: number[], gateway: number[]) =>
    addedMsFigure(surface, baseline, gateway, MAX_ADDED_MS);
  return [
    row(
      SURFACES.tool,
      rounds.map((figures) => figures.builtinMs + figures.fixtureMs),
      rounds.map((figures) => figures.mcpToolMs),
    ),
    row(
      SURFACES.ask,
      rounds.map((figures) => figures.executeMs),
      rounds.map((figures) => figures.askMs),
    ),
  ].filter((figureRow) => wantsSurface(options, figureRow.surface));
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
