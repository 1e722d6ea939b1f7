// CPU per turn of the session store calls one agent turn makes (ensure, two transcript appends, usage) at N-way concurrency.
//
//   npx tsx bench/micro/session-writes.bench.ts [--turns 10000] [--warmup 2000] [--concurrency 32] [--sessions 1000]
//                                               [--runs 3] [--ticks none|turn|call] [--src /path/to/other/checkout/src]
//
// Opens a fresh SQLite file through openSqliteStore (WAL, migrations) and drives its SessionPort the way
// TurnService does, minus the model: each turn ensures its session, appends the user message, appends the
// assistant reply and records usage. Without the model nothing waits for I/O, so by default (`--ticks none`) all
// the turns run in one event-loop turn and batches grow to the queue's limits; `--ticks turn` yields to the event
// loop after every turn and `--ticks call` after every store call (each tick then carries at most one call per
// worker), closer to turns whose steps are separated by model calls. The CPU time (process.cpuUsage, user + system) covers the turns and the
// close that writes anything still queued. `--src` measures another checkout's store with this same driver
// (e.g. the code before a change). Lives in bench/micro/ so that bench/run-all.ts does not pick it up.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StorePorts, TranscriptMessage } from '../../src/store/index.js';

interface Options {
  turns: number;
  warmup: number;
  concurrency: number;
  sessions: number;
  runs: number;
  ticks: 'none' | 'turn' | 'call';
  src: string;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string): string | undefined => {
    const index = argv.indexOf(name);
    return index === -1 ? undefined : argv[index + 1];
  };
  return {
    turns: Number(value('--turns') ?? 10_000),
    warmup: Number(value('--warmup') ?? 2_000),
    concurrency: Number(value('--concurrency') ?? 32),
    sessions: Number(value('--sessions') ?? 1_000),
    runs: Number(value('--runs') ?? 3),
    ticks: parseTicks(value('--ticks') ?? 'none'),
    src: resolve(value('--src') ?? fileURLToPath(new URL('../../src', import.meta.url))),
  };
}

function parseTicks(text: string): Options['ticks'] {
  if (text === 'none' || text === 'turn' || text === 'call') return text;
  throw new Error(`--ticks must be none, turn or call, not ${text}`);
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The store of this or another checkout; an older one closes synchronously. */
type OpenStore = (options: { path: string }) => Omit<StorePorts, 'close'> & { close(): void | Promise<void> };

const WORDS =
  'the a weather report budget meeting travel paris rain sun code review deploy plan agent tool memory search answer question'.split(
    ' ',
  );
/** Deterministic text of `count` words, different per seed, so the FTS index sees a realistic vocabulary. */
function text(seed: number, count: number): string {
  const words: string[] = [];
  for (let index = 0; index < count; index += 1) words.push(WORDS[(seed * 31 + index * 7) % WORDS.length] ?? 'x');
  return words.join(' ');
}

async function runTurns(
  store: Pick<StorePorts, 'sessions'>,
  first: number,
  turns: number,
  options: Options,
): Promise<void> {
  let next = first;
  const end = first + turns;
  async function worker(): Promise<void> {
    while (next < end) {
      const turn = next;
      next += 1;
      const sessionKey = `default:user${turn % options.sessions}:bench`;
      const now = 1_700_000_000_000 + turn;
      const step = options.ticks === 'call' ? nextTick : async () => {};
      await store.sessions.ensure({
        sessionKey,
        agentId: 'default',
        tenantId: 'default',
        kind: 'dm',
        createdAt: now,
        metadata: {},
        ownerId: 'bench',
      });
      await step();
      const user: TranscriptMessage = { role: 'user', content: text(turn, 20), timestamp: now };
      await store.sessions.append(sessionKey, [user], now);
      await step();
      const reply: TranscriptMessage = { role: 'assistant', content: text(turn + 1, 60), timestamp: now + 1 };
      await store.sessions.append(sessionKey, [reply], now + 1);
      await step();
      await store.sessions.recordTurnUsage(
        sessionKey,
        { totalTokens: 120, totalCost: 0.001, stepsExecuted: 1, requestedBy: 'bench' },
        now + 1,
      );
      if (options.ticks !== 'none') await nextTick();
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
}

async function measureOnce(
  openStore: OpenStore,
  options: Options,
): Promise<{ cpuUsPerTurn: number; wallUsPerTurn: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-session-writes-'));
  try {
    const store = openStore({ path: join(dir, 'gateway.db') });
    await runTurns(store, 0, options.warmup, options);
    const cpuStart = process.cpuUsage();
    const wallStart = process.hrtime.bigint();
    await runTurns(store, options.warmup, options.turns, options);
    await store.close();
    const cpu = process.cpuUsage(cpuStart);
    const wallUs = Number(process.hrtime.bigint() - wallStart) / 1_000;
    return { cpuUsPerTurn: (cpu.user + cpu.system) / options.turns, wallUsPerTurn: wallUs / options.turns };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const module: { openSqliteStore: OpenStore } = await import(
    pathToFileURL(join(options.src, 'store/sqlite/index.ts')).href
  );
  const results: { cpuUsPerTurn: number; wallUsPerTurn: number }[] = [];
  for (let run = 0; run < options.runs; run += 1) results.push(await measureOnce(module.openSqliteStore, options));
  console.log(
    JSON.stringify({
      src: options.src,
      turns: options.turns,
      concurrency: options.concurrency,
      sessions: options.sessions,
      ticks: options.ticks,
      cpuUsPerTurn: results.map((result) => Number(result.cpuUsPerTurn.toFixed(1))),
      medianCpuUsPerTurn: Number(median(results.map((result) => result.cpuUsPerTurn)).toFixed(1)),
      medianWallUsPerTurn: Number(median(results.map((result) => result.wallUsPerTurn)).toFixed(1)),
    }),
  );
}

await main();
