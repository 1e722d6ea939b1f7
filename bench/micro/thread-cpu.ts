// CPU per completion of each thread of a gateway process (main thread, SQLite writer and readers, libuv and GC
// threads) under plain chat-completion load over the fake LLM, read from /proc/<pid>/task (Linux):
//
//   npx tsx bench/micro/thread-cpu.ts [--requests 20000] [--connections 32] [--stream]
//
// The gateway runs as its own process (`agent-gateway start` under tsx); the fake LLM and the load run in this one.
// Set GATEWAY_CPU_PROFILE_DIR to also write the gateway's CPU profiles (every thread) there when it stops.
import { readdirSync, readFileSync } from 'node:fs';
import { chatLoad } from '../chat-completions.bench.js';
import { BENCH_AGENT, startBenchLlm } from '../lib/fake-llm.js';
import { newBenchToken, startGatewayProcess } from '../lib/gateway-process.js';
import { runLoad } from '../lib/load.js';

/** USER_HZ, the unit of /proc times. */
const TICKS_PER_SEC = 100;
const WARMUP_REQUESTS = 5_000;

const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = argv.indexOf(name);
  const value = index === -1 ? Number.NaN : Number(argv[index + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const requests = option('--requests', 20_000);
const connections = option('--connections', 32);
const isStream = argv.includes('--stream');

/** CPU ticks so far of each thread of `pid`, keyed "tid name". */
function threadTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks.set(`${tid} ${name}`, Number(fields[11]) + Number(fields[12]));
  }
  return ticks;
}

const llm = await startBenchLlm();
const token = newBenchToken();
const gateway = await startGatewayProcess({ llmBaseUrl: llm.baseUrl, token });
try {
  const target = { host: gateway.host, port: gateway.port, connections, model: BENCH_AGENT, token, isStream };
  await runLoad(chatLoad(target, { warmupMs: 0, durationMs: 600_000, maxRequests: WARMUP_REQUESTS }));
  const before = threadTicks(gateway.pid);
  const result = await runLoad(chatLoad(target, { warmupMs: 0, durationMs: 600_000, maxRequests: requests }));
  const after = threadTicks(gateway.pid);
  const usPerOp = (ticks: number): string => ((ticks * 1e6) / TICKS_PER_SEC / result.ops).toFixed(1);
  let total = 0;
  for (const [thread, ticks] of after) {
    const used = ticks - (before.get(thread) ?? 0);
    total += used;
    if (used > 0) console.log(`${thread.padEnd(24)} ${usPerOp(used).padStart(8)} µs/completion`);
  }
  const perSec = Math.round(result.ops / (result.elapsedMs / 1000));
  console.log(
    `${result.ops} completions (${result.errors} errors), ${perSec}/s, every thread ${usPerOp(total)} µs/completion`,
  );
} finally {
  await gateway.close();
  await llm.close();
}
