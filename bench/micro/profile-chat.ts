// Puts the gateway under chat-completion load for a CPU profile: `node --cpu-prof --import tsx bench/micro/profile-chat.ts`.
//
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/micro/profile-chat.ts [--warmup 5000] [--duration-ms 10000] [--connections 32] [--stream]
//
// The gateway and the fake LLM run in this process's main thread (as in the chat bench), the load in a worker:
// the main thread's profile is the gateway plus the fake LLM, whose own functions live in test/support/.
// The warm-up requests are sent first, unmeasured; the profile still covers them, so keep the duration long.
import { chatLoad } from '../chat-completions.bench.js';
import { BENCH_AGENT, startGatewayOverLlm } from '../lib/fake-llm.js';
import { runLoad } from '../lib/load.js';

const argv = process.argv.slice(2);
const value = (name: string): string | undefined => {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
};
const warmup = Number(value('--warmup') ?? 5_000);
const durationMs = Number(value('--duration-ms') ?? 10_000);
const connections = Number(value('--connections') ?? 32);
const isStream = argv.includes('--stream');

const gateway = await startGatewayOverLlm();
try {
  const target = {
    host: gateway.host,
    port: gateway.port,
    connections,
    model: BENCH_AGENT,
    token: gateway.token,
    isStream,
  };
  const warm = await runLoad(chatLoad(target, { warmupMs: 0, durationMs: 600_000, maxRequests: warmup }));
  const before = process.cpuUsage();
  const result = await runLoad(chatLoad(target, { warmupMs: 0, durationMs, maxRequests: 10_000_000 }));
  const cpu = process.cpuUsage(before);
  console.log(
    JSON.stringify({
      warmupOps: warmup === 0 ? 0 : warm.ops,
      ops: result.ops,
      errors: result.errors,
      opsPerSec: Math.round(result.opsPerSec),
      processCpuUsPerOp: Math.round((cpu.user + cpu.system) / Math.max(1, result.ops)),
      p50Ms: result.latencyMs.p50,
    }),
  );
} finally {
  await gateway.close();
}
