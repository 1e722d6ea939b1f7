// CPU per turn of the evidence a plain turn records (one turn row holding its four trajectory records, one usage row),
// written through the store's EvidencePort (on its writer thread) in batches as the recorder does (500 writes each);
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

/** A plain turn as the recorder writes it: one turn row (its four steps inside) when it ends, and its usage row. */
function turnWrites(index: number): EvidenceWrite[] {
  const traceId = `trace-${index}`;
  const sessionKey = `default:openai-api:openai:chatcmpl-${index}`;
  const ts = 1_700_000_000_000 + index;
  return [
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
    {
      type: 'turn',
      turn: {
        traceId,
        sessionKey,
        agentId: 'bench',
        channel: 'openai',
        messageId: `chatcmpl-${index}`,
        startedAt: ts,
        isSynthetic: false,
        end: { endReason: 'completed', degraded: false, endedAt: ts + 1 },
        steps: [
          { kind: 'turn_start', ts, data: { agentId: 'bench', channel: 'openai' } },
          {
            kind: 'context_budget',
            ts,
            data: { step: 1, windowTokens: 128000, assembledInputTokens: 40, verdict: 'fits' },
          },
          {
            kind: 'model_call',
            ts,
            data: { step: 1, provider: 'local', model: 'small', inputTokens: 10, outputTokens: 5, latencyMs: 1 },
          },
          { kind: 'turn_end', ts, data: { finishReason: 'stop', steps: 1, inputTokens: 10, outputTokens: 5 } },
        ],
      },
    },
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
