// CPU per streamed model call of the wire adapters and of streamModelCall over them, against a bare undici request (the floor).
//
//   npx tsx bench/micro/wire-adapters.bench.ts [--calls 5000] [--warmup 5000] [--concurrency 1,16] [--only <name text>]
//
// The fake LLM runs in a child process, so this process's CPU time (process.cpuUsage, user + system) is the
// client side only: building the request, undici, SSE decoding, events. Each call asks for the fake's echo
// reply `Echo: Hello` (two text deltas, usage in the last chunk). Lives in bench/micro/ so that
// bench/run-all.ts, which runs every bench/*.bench.ts, does not pick it up.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Pool } from 'undici';
import { streamModelCall } from '../../src/providers/model-call.js';
import type { ProviderType } from '../../src/providers/index.js';
import { createWireAdapter, type WireCallRequest } from '../../src/providers/wire/index.js';
import { startFakeLlm } from '../../test/support/fake-llm-server.js';

interface Options {
  calls: number;
  warmup: number;
  concurrency: number[];
  /** Runs only the contenders whose name contains this text. */
  only: string;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string): string | undefined => {
    const index = argv.indexOf(name);
    return index === -1 ? undefined : argv[index + 1];
  };
  return {
    calls: Number(value('--calls') ?? 5_000),
    warmup: Number(value('--warmup') ?? 5_000),
    concurrency: (value('--concurrency') ?? '1,16').split(',').map(Number),
    only: value('--only') ?? '',
  };
}

/** One contender: makes one streamed call and reads it to the end. */
interface Contender {
  name: string;
  call(): Promise<void>;
  close(): Promise<void>;
}

const MESSAGES = [{ role: 'user' as const, content: 'Hello', timestamp: 0 }];

function wireContender(type: ProviderType, baseUrl: string): Contender {
  const adapter = createWireAdapter(type, { baseUrl, apiKey: 'bench', timeoutMs: 30_000 });
  return {
    name: `wire adapter (${type})`,
    async call() {
      // A signal per call, as each request or turn has its own.
      const { signal } = new AbortController();
      const request: WireCallRequest = {
        modelId: 'fake-model',
        system: 'You are terse.',
        messages: MESSAGES,
        tools: [],
        sampling: {},
        signal,
      };
      let text = '';
      for await (const event of adapter.stream(request)) if (event.type === 'text-delta') text += event.text;
      if (text !== 'Echo: Hello') throw new Error(`unexpected reply ${text}`);
    },
    close: () => adapter.close(),
  };
}

/** The least any client can do: POST the body, read the SSE bytes, parse nothing. */
function undiciFloor(origin: string): Contender {
  const pool = new Pool(origin, { headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000 });
  const body = JSON.stringify({
    model: 'fake-model',
    messages: [
      { role: 'system', content: 'You are terse.' },
      ...MESSAGES.map(({ role, content }) => ({ role, content })),
    ],
    stream: true,
    stream_options: { include_usage: true },
  });
  const headers = ['content-type', 'application/json', 'authorization', 'Bearer bench'];
  return {
    name: 'bare undici request (floor)',
    async call() {
      const response = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers, body });
      const chunks: AsyncIterable<Buffer> = response.body;
      for await (const chunk of chunks) if (chunk.length === 0) throw new Error('empty chunk');
    },
    close: () => pool.close(),
  };
}

/** The router's path: streamModelCall (output meter, abort mapping) over the same adapter. */
function modelCallContender(baseUrl: string): Contender {
  const adapter = createWireAdapter('openai-compatible', { baseUrl, apiKey: 'bench', timeoutMs: 30_000 });
  const log = pino({ level: 'silent' });
  return {
    name: 'streamModelCall over the wire adapter (openai-compatible)',
    async call() {
      const { signal } = new AbortController();
      let text = '';
      const calls = streamModelCall({
        adapter,
        modelId: 'fake-model',
        system: 'You are terse.',
        messages: MESSAGES,
        tools: [],
        settings: {},
        signal,
        log,
        limits: { maxChars: 1_000_000, maxBytes: 2_097_152 },
      });
      for await (const event of calls) if (event.type === 'text-delta') text += event.text;
      if (text !== 'Echo: Hello') throw new Error(`unexpected reply ${text}`);
    },
    close: () => adapter.close(),
  };
}

async function runCalls(contender: Contender, calls: number, concurrency: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      await contender.call();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

async function measure(
  contender: Contender,
  options: Options,
  concurrency: number,
): Promise<{ cpuUsPerCall: number; callsPerSec: number }> {
  await runCalls(contender, options.warmup, concurrency);
  const startedAt = process.hrtime.bigint();
  const before = process.cpuUsage();
  await runCalls(contender, options.calls, concurrency);
  const cpu = process.cpuUsage(before);
  const elapsedMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  return { cpuUsPerCall: (cpu.user + cpu.system) / options.calls, callsPerSec: (options.calls / elapsedMs) * 1000 };
}

/** Starts the fake LLM in a child process (this same file with --serve) and returns its URL. */
function startServerProcess(): Promise<{ url: string; stop(): void }> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: unknown) => {
      if (typeof message !== 'object' || message === null || !('url' in message) || typeof message.url !== 'string') {
        reject(new Error('fake LLM child sent no url'));
        return;
      }
      resolve({ url: message.url, stop: () => child.kill() });
    });
  });
}

async function serve(): Promise<void> {
  const llm = await startFakeLlm({ maxRecordedRequests: 8 });
  process.send?.({ url: llm.url });
  process.once('disconnect', () => {
    void llm.close().finally(() => process.exit(0));
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const server = await startServerProcess();
  try {
    const contenders = [
      undiciFloor(server.url),
      wireContender('openai-compatible', `${server.url}/v1`),
      wireContender('anthropic', `${server.url}/v1`),
      wireContender('google', `${server.url}/v1beta`),
      modelCallContender(`${server.url}/v1`),
    ].filter((contender) => contender.name.includes(options.only));
    console.log(
      `Node ${process.version}; ${options.warmup} warm-up calls, then ${options.calls} measured calls per row\n`,
    );
    console.log('contender                                  concurrency   CPU us/call   calls/s');
    for (const concurrency of options.concurrency) {
      for (const contender of contenders) {
        const { cpuUsPerCall, callsPerSec } = await measure(contender, options, concurrency);
        console.log(
          `${contender.name.padEnd(42)} ${String(concurrency).padStart(11)}   ${cpuUsPerCall.toFixed(1).padStart(11)}   ${callsPerSec.toFixed(0).padStart(7)}`,
        );
      }
    }
    for (const contender of contenders) await contender.close();
  } finally {
    server.stop();
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
