// POST /v1/chat/completions, plain and streamed: through the gateway to a fake LLM, against the same requests
// sent straight to that fake LLM's own /v1/chat/completions and through a stateless reverse proxy in front of it;
// then plain, a gateway process against a Portkey gateway process over the same fake LLM.
import { compare, isEntryPoint, isRecord, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { BENCH_AGENT, BENCH_MODEL, startBenchLlm, startGatewayOverLlm } from './lib/fake-llm.js';
import { runLoad, type LoadSpec } from './lib/load.js';
import type { LoadWindow } from './lib/load-run.js';
import type { ComparisonRow, RowTarget } from './lib/measure.js';
import {
  PORTKEY_VERSION,
  startGatewayProcessOverLlm,
  startPortkeyOverLlm,
  type ProcessOverLlm,
} from './lib/portkey.js';
import { startProxyOverLlm } from './lib/proxy.js';

/**
 * Issue 10's targets: the gateway adds at most 0.3 ms at p50 over direct (read at 1 connection, where
 * latency is not queueing); at 32 connections it keeps at least 0.7 of the stateless proxy's throughput and
 * spends at most 250 µs of CPU per completion. The gateway's CPU is the main thread's per completion minus
 * the direct side's, i.e. the fake LLM's, which shares that thread with it.
 */
const LATENCY_TARGET: RowTarget = { maxAddedP50Ms: 0.3 };
const THROUGHPUT_TARGET: RowTarget = { minProxyRatio: 0.7, maxAddedCpuUsPerOp: 250 };

/** Keep-alive connections, one request in flight on each (HTTP/1.1 without pipelining). */
const SCENARIOS = [
  { isStream: false, connections: 1, target: LATENCY_TARGET },
  { isStream: false, connections: 32, target: THROUGHPUT_TARGET },
  { isStream: true, connections: 1, target: LATENCY_TARGET },
  { isStream: true, connections: 32, target: THROUGHPUT_TARGET },
] as const;

/**
 * Issue 33: the gateway answers at least 3x the completions per second of Portkey's gateway at 32 connections.
 * At 1 connection the ratio is recorded only (it is latency, where both sides wait on the same upstream).
 * Portkey 1.15.2 answers every streamed completion here with a 500 ("Something went wrong"): the Response class of
 * the @hono/node-server it resolves to (1.19.19) keeps the upstream fetch response's immutable headers, and Portkey
 * appends its own to them. So its rows are plain completions only.
 */
const PORTKEY_SCENARIOS = [
  { connections: 1, target: {} },
  { connections: 32, target: { minRatio: 3 } },
] as const satisfies readonly { connections: number; target: RowTarget }[];

/** The user message; the fake LLM answers `Echo: Hello` (streamed as the deltas `Echo: ` and `Hello`). */
const MESSAGE = 'Hello';
const ANSWER = `Echo: ${MESSAGE}`;

/** Both sides get the same bytes but for `model`: the gateway's agent id, or the fake LLM's model id. */
function chatBody(model: string, isStream: boolean): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: MESSAGE }], stream: isStream });
}

export function isCompletion(body: unknown): boolean {
  if (!isRecord(body) || body.object !== 'chat.completion' || !Array.isArray(body.choices)) return false;
  const [choice] = body.choices as unknown[];
  return (
    isRecord(choice) && isRecord(choice.message) && choice.message.content === ANSWER && choice.finish_reason === 'stop'
  );
}

/** A whole chunk stream: the deltas spell the answer, a chunk says `stop`, and `[DONE]` ends it. */
function isCompleteStream(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  const data = body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));
  if (data.at(-1) !== '[DONE]') return false;
  let text = '';
  let isStopped = false;
  for (const item of data.slice(0, -1)) {
    let chunk: unknown;
    try {
      chunk = JSON.parse(item);
    } catch {
      return false;
    }
    if (!isRecord(chunk) || chunk.object !== 'chat.completion.chunk' || !Array.isArray(chunk.choices)) return false;
    for (const choice of chunk.choices as unknown[]) {
      if (!isRecord(choice) || !isRecord(choice.delta)) return false;
      if (typeof choice.delta.content === 'string') text += choice.delta.content;
      if (choice.finish_reason === 'stop') isStopped = true;
    }
  }
  return text === ANSWER && isStopped;
}

interface ChatLoad {
  host: string;
  port: number;
  connections: number;
  /** The gateway's agent id, or the fake LLM's model id. */
  model: string;
  token: string;
  isStream: boolean;
  /** Sent besides Content-Type and Authorization (Portkey's routing headers). */
  headers?: Record<string, string>;
}

export function chatLoad(
  { host, port, connections, model, token, isStream, headers = {} }: ChatLoad,
  window: LoadWindow,
): LoadSpec {
  return {
    kind: 'http',
    host,
    port,
    connections,
    request: {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers },
      body: chatBody(model, isStream),
    },
    expectStatus: 200,
    // Every response is read to its end and must be whole: the answer, or for a stream its last frame.
    expectBodyIncludes: isStream ? 'data: [DONE]' : JSON.stringify({ content: ANSWER }).slice(1, -1),
    ...window,
  };
}

/**
 * Runs the gateway path unmeasured, plain then streamed, for the warm-up time each. Without it the first
 * measured gateway round pays for compiling the gateway's code and the later ones do not, and the first
 * direct round runs in a fresher process than the others (on the first row it measured 10% faster).
 */
async function warmUpProcess(options: BenchOptions): Promise<void> {
  const gateway = await startGatewayOverLlm();
  try {
    for (const isStream of [false, true]) {
      const spec = chatLoad(
        { host: gateway.host, port: gateway.port, connections: 4, model: BENCH_AGENT, token: gateway.token, isStream },
        { warmupMs: 0, durationMs: Math.max(100, options.warmupMs), maxRequests: options.maxRequests },
      );
      const result = await runLoad(spec);
      if (result.ops === 0 || result.errors > 0)
        throw new Error(`process warm-up failed: ${result.ops} ok, ${result.errors} errors`);
    }
  } finally {
    await gateway.close();
  }
}

export async function run(options: BenchOptions): Promise<ComparisonRow[]> {
  const rows: ComparisonRow[] = [];
  let isWarm = false;
  for (const { isStream, connections, target } of SCENARIOS) {
    const surface = `POST /v1/chat/completions${isStream ? ' stream' : ''} c=${connections}`;
    if (!wantsSurface(options, surface)) continue;
    if (!isWarm) {
      options.log('(warming up the process on the gateway path, unmeasured)');
      await warmUpProcess(options);
      isWarm = true;
    }
    // Every run, each on a fresh server, finishes `warmupRequests` (5,000 by default) unmeasured first.
    const window: LoadWindow = {
      warmupMs: options.warmupMs,
      warmupRequests: options.warmupRequests,
      durationMs: options.durationMs,
      maxRequests: options.maxRequests,
    };
    const isExpectedBody = isStream ? isCompleteStream : isCompletion;
    const row = await compare(
      { surface, connections, depth: 1, target },
      {
        label: 'direct (fake LLM)',
        start: startBenchLlm,
        // The fake LLM checks no key; the header is sent anyway so both sides get the same request.
        loadFor: (llm) =>
          chatLoad(
            { host: llm.host, port: llm.port, connections, model: BENCH_MODEL, token: 'direct', isStream },
            window,
          ),
        isExpectedBody,
      },
      {
        label: 'gateway -> fake LLM',
        start: startGatewayOverLlm,
        loadFor: (gateway) =>
          chatLoad(
            { host: gateway.host, port: gateway.port, connections, model: BENCH_AGENT, token: gateway.token, isStream },
            window,
          ),
        isExpectedBody,
      },
      options,
      {
        label: 'proxy -> fake LLM',
        start: startProxyOverLlm,
        loadFor: (proxy) =>
          chatLoad(
            { host: proxy.host, port: proxy.port, connections, model: BENCH_MODEL, token: 'proxy', isStream },
            window,
          ),
        isExpectedBody,
      },
    );
    rows.push(row);
  }
  rows.push(...(await runAgainstPortkey(options)));
  return rows;
}

/** The server figures of both sides are their process's (every thread, from /proc), not the bench main thread's. */
const processPids = (server: ProcessOverLlm) => [server.pid];

/**
 * Plain completions, a gateway process against a Portkey process, each over its own fake LLM in the bench's main
 * thread: the same shape on both sides, so throughput and CPU per completion compare like with like. `ratio` is
 * gateway/Portkey; `cpu ratio` is Portkey CPU over gateway CPU per completion.
 */
async function runAgainstPortkey(options: BenchOptions): Promise<ComparisonRow[]> {
  const rows: ComparisonRow[] = [];
  for (const { connections, target } of PORTKEY_SCENARIOS) {
    const surface = `POST /v1/chat/completions c=${connections}, gateway vs Portkey ${PORTKEY_VERSION}`;
    if (!wantsSurface(options, surface)) continue;
    const window: LoadWindow = {
      warmupMs: options.warmupMs,
      warmupRequests: options.warmupRequests,
      durationMs: options.durationMs,
      maxRequests: options.maxRequests,
    };
    const load = (server: ProcessOverLlm, model: string, token: string, headers?: Record<string, string>) =>
      chatLoad({ host: server.host, port: server.port, connections, model, token, isStream: false, headers }, window);
    rows.push(
      await compare(
        { surface, connections, depth: 1, target },
        {
          label: `Portkey ${PORTKEY_VERSION} process`,
          start: startPortkeyOverLlm,
          // Portkey forwards the bearer to the upstream as the provider key; the fake LLM checks none.
          loadFor: (portkey) => load(portkey, BENCH_MODEL, 'portkey', portkey.headers),
          isExpectedBody: isCompletion,
          pids: processPids,
        },
        {
          label: 'gateway process',
          start: startGatewayProcessOverLlm,
          loadFor: (gateway) => load(gateway, BENCH_AGENT, gateway.token),
          isExpectedBody: isCompletion,
          pids: processPids,
        },
        options,
      ),
    );
  }
  return rows;
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
