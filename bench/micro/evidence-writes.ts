// CPU per turn of the evidence a plain turn records (session index start and end, three trajectory records, one usage
// row), written through the store's EvidencePort (on its writer thread) in batches of 500 as the recorder does;
// `mainBusyUsPerTurn` is the event loop's busy time, `cpuUsPerTurn` every thread's CPU:
//
//   npx tsx bench/micro/evidence-writes.ts [--turns 20000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvidenceWrite } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

const argv = process.argv.slice(2);
const turns = Number(argv[argv.indexOf('--turns') + 1] ?? 20_000) || 20_000;
const BATCH = 500;

function turnWrites(index: number): EvidenceWrite[] {
  const traceId = `trace-${index}`;
  const sessionKey = `default:openai-api:openai:chatcmpl-${index}`;
  const ts = 1_700_000_000_000 + index;
  const step = (kind: string, data: Record<string, unknown>): EvidenceWrite => ({
    type: 'trajectory',
    record: { sessionKey, traceId, kind, ts, data },
  });
  return [
    {
      type: 'session_start',
      entry: {
        traceId,
        sessionKey,
        agentId: 'bench',
        channel: 'openai',
        messageId: `chatcmpl-${index}`,
        startedAt: ts,
        isSynthetic: false,
      },
    },
    step('context_budget', { step: 1, windowTokens: 128000, assembledInputTokens: 40, verdict: 'fits' }),
    step('model_call', { step: 1, provider: 'local', model: 'small', inputTokens: 10, outputTokens: 5, latencyMs: 1 }),
    {
      type: 'usage',
      record: {
        ts,
        agentId: 'bench',
        sessionKey,
        provider: 'local',
        model: 'small',
        inputTokens: 10,
        outputTokens: 5,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
      },
    },
    step('turn_end', { finishReason: 'stop', steps: 1, inputTokens: 10, outputTokens: 5 }),
    { type: 'session_end', end: { traceId, endReason: 'completed', degraded: false, endedAt: ts + 1 } },
  ];
}

const dir = mkdtempSync(join(tmpdir(), 'evidence-bench-'));
const store = openSqliteStore({ path: join(dir, 'gateway.db') });
try {
  let batch: EvidenceWrite[] = [];
  const before = process.cpuUsage();
  const loopBefore = performance.eventLoopUtilization();
  for (let index = 0; index < turns; index += 1) {
    batch.push(...turnWrites(index));
    if (batch.length >= BATCH) {
      await store.evidence.append(batch);
      batch = [];
    }
  }
  await store.evidence.append(batch);
  const cpu = process.cpuUsage(before);
  const loop = performance.eventLoopUtilization(loopBefore);
  const perTurn = (us: number) => Math.round((us / turns) * 10) / 10;
  console.log(
    JSON.stringify({
      turns,
      cpuUsPerTurn: perTurn(cpu.user + cpu.system),
      mainBusyUsPerTurn: perTurn(loop.active * 1000),
    }),
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
