// Execution graphs (issue 37): what one graph node adds over the turn or tool it runs. A graph of two nodes in a row
// against a graph of one, so the run's fixed costs (graph.run, the events that report its end) cancel out: the
// difference is one node. An agent node is held against the turn it runs (agent.execute); a tool node runs
// current_time, whose own time is a few microseconds, so its difference is all overhead (reference 0).
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { callRpc } from '../test/support/http-client.js';
import { startFakeLlm, type FakeLlm } from '../test/support/fake-llm-server.js';
import { isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { addedMsFigure, median, type FigureRow } from './lib/figures.js';
import { startGateway, type BenchGateway } from './lib/gateway.js';
import { waitForQuietMachine } from './lib/machine-load.js';

/** Issue 37: a node may add at most this over what it runs, in ms. */
const MAX_ADDED_MS = 2;
/** Runs per side per round, after WARMUP_RUNS unmeasured ones. */
const RUNS = 100;
const WARMUP_RUNS = 20;
let peers = 0;
const freshPeer = () => String((peers += 1));

const SURFACES = {
  agent: 'graphs: an agent node (reference: the turn it runs, agent.execute)',
  tool: 'graphs: a tool node running current_time (reference: 0, the tool takes microseconds)',
} as const;

interface World {
  gateway: BenchGateway;
  llm: FakeLlm;
  /** Resolves when the run's graph:completed frame arrives on /api/events. */
  completed(runId: string): Promise<void>;
  close(): Promise<void>;
}

async function listenForCompletions(gateway: BenchGateway, signal: AbortSignal) {
  const waiters = new Map<string, () => void>();
  const response = await fetch(`${gateway.url}/api/events`, {
    headers: { authorization: `Bearer ${gateway.token}` },
    signal,
  });
  const parser = createParser({
    onEvent(event) {
      if (event.event !== 'graph:completed') return;
      const { runId } = JSON.parse(event.data) as { runId?: string };
      if (runId !== undefined) waiters.get(runId)?.();
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  })().catch(() => undefined);
  return (runId: string) => new Promise<void>((resolve) => waiters.set(runId, resolve));
}

const chain = (name: string, count: number, node: Record<string, unknown>) => ({
  name,
  nodes: Array.from({ length: count }, (_, index) => ({
    id: `n${index}`,
    ...(index === 0 ? {} : { needs: [`n${index - 1}`] }),
    ...node,
  })),
});

async function startWorld(): Promise<World> {
  const llm = await startFakeLlm({ models: ['fake-model'], maxRecordedRequests: 8 });
  const agent = { provider: 'fake', model: 'fake-model' } as const;
  const gateway = await startGateway({
    config: {
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Bench', ...agent, tools: ['current_time'] } },
    },
  });
  const stop = new AbortController();
  const completed = await listenForCompletions(gateway, stop.signal);
  const agentNode = { type: 'agent', agentId: 'default', message: 'go' };
  const toolNode = { type: 'tool', tool: 'current_time', args: {} };
  for (const definition of [
    chain('agent-1', 1, agentNode),
    chain('agent-2', 2, agentNode),
    chain('tool-1', 1, toolNode),
    chain('tool-2', 2, toolNode),
  ]) {
    const reply = await callRpc(gateway.url, gateway.token, 'graph.define', { definition });
    if ('error' in reply) throw new Error(`graph.define failed: ${JSON.stringify(reply.error)}`);
  }
  return {
    gateway,
    llm,
    completed,
    async close() {
      stop.abort();
      await gateway.close();
      await llm.close();
    },
  };
}

function graphRun(world: World, name: string, turns: number) {
  return async () => {
    for (let turn = 0; turn < turns; turn += 1) world.llm.script({ text: 'done' });
    const reply = await callRpc(world.gateway.url, world.gateway.token, 'graph.run', { name });
    if ('error' in reply) throw new Error(`graph.run failed: ${JSON.stringify(reply.error)}`);
    const { runId } = reply.result as { runId: string };
    await world.completed(runId);
  };
}

function turn(world: World) {
  return async () => {
    world.llm.script({ text: 'done' });
    const reply = await callRpc(world.gateway.url, world.gateway.token, 'agent.execute', {
      message: 'go',
      sessionKey: { tenantId: 'default', userId: 'bench', channelId: 'rpc', peerId: freshPeer() },
    });
    if ('error' in reply) throw new Error(`agent.execute failed: ${JSON.stringify(reply.error)}`);
  };
}

/** Median time of each call over RUNS sequential runs, the calls taking turns so the machine's moods fall on all. */
async function alternatingMediansMs(calls: readonly (() => Promise<unknown>)[]): Promise<number[]> {
  for (let index = 0; index < WARMUP_RUNS; index += 1) for (const call of calls) await call();
  const times = calls.map((): number[] => []);
  for (let index = 0; index < RUNS; index += 1) {
    for (const [position, call] of calls.entries()) {
      const startedAt = performance.now();
      await call();
      times[position]?.push(performance.now() - startedAt);
    }
  }
  return times.map(median);
}

async function measureRound(options: BenchOptions) {
  const quiet = await waitForQuietMachine({ maxWaitMs: 10_000 });
  if (!quiet.isQuiet)
    options.log(`  (other processes use ${Math.round(quiet.lastShare * 100)}% of the machine; measuring anyway)`);
  const world = await startWorld();
  try {
    const [one = Number.NaN, two = Number.NaN, plain = Number.NaN] = await alternatingMediansMs([
      graphRun(world, 'agent-1', 1),
      graphRun(world, 'agent-2', 2),
      turn(world),
    ]);
    const [toolOne = Number.NaN, toolTwo = Number.NaN] = await alternatingMediansMs([
      graphRun(world, 'tool-1', 0),
      graphRun(world, 'tool-2', 0),
    ]);
    options.log(
      `  agent graph 1 node ${one.toFixed(2)} ms, 2 nodes ${two.toFixed(2)} ms, agent.execute ${plain.toFixed(2)} ms; ` +
        `tool graph 1 node ${toolOne.toFixed(2)} ms, 2 nodes ${toolTwo.toFixed(2)} ms`,
    );
    return { agentNode: two - one, turn: plain, toolNode: toolTwo - toolOne };
  } finally {
    await world.close();
  }
}

export async function run(options: BenchOptions): Promise<FigureRow[]> {
  if (!Object.values(SURFACES).some((surface) => wantsSurface(options, surface))) return [];
  options.log(`graphs: ${RUNS} sequential runs per side per round, ${options.rounds} rounds`);
  const rounds = [];
  for (let round = 1; round <= options.rounds; round += 1) rounds.push(await measureRound(options));
  const row = (surface: string, baseline: number[], gateway: number[]) =>
    addedMsFigure(surface, baseline, gateway, MAX_ADDED_MS);
  return [
    row(
      SURFACES.agent,
      rounds.map((figures) => figures.turn),
      rounds.map((figures) => figures.agentNode),
    ),
    row(
      SURFACES.tool,
      rounds.map(() => 0),
      rounds.map((figures) => figures.toolNode),
    ),
  ].filter((figureRow) => wantsSurface(options, figureRow.surface));
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
