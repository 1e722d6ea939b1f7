// Wall time of the EvidencePort reads the reports make (obs.explain, obs.trace.search, obs.fleet.health, the context
// report) on a store of 100k one-turn sessions, median and p95 over repeats:
//
//   npx tsx bench/micro/evidence-reads.ts [--sessions 100000] [--repeats 7] [--postgres] [--src /other/checkout/src]
//     [--only read,read] [--keep]
//
// Each session is one turn (turn_start, context_budget, model_call, one in five a tool_call and a second
// context_budget and model_call, turn_end) spread over 30 hours, so the fleet's 24-hour window holds 80%. `--src`
// measures another checkout's store with this same driver: a store without `turn` writes (before issue 33) is filled
// with its own writes (session_start, trajectory records, session_end), so both hold the same evidence. `--postgres`
// runs on a PostgreSQL server started for the run (test/support/postgres-process.ts); `--keep` keeps the SQLite
// file for a look at its query plans. Not part of npm test.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EvidencePort, EvidenceWrite, StorePorts, TurnStep } from '../../src/store/index.js';

const value = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
};
const sessions = Number(value('--sessions') ?? 100_000);
const repeats = Number(value('--repeats') ?? 7);
const onPostgres = process.argv.includes('--postgres');
const src = resolve(value('--src') ?? fileURLToPath(new URL('../../src', import.meta.url)));
const only = value('--only')?.split(',');
const keep = process.argv.includes('--keep');
const hasTurnWrites = existsSync(join(src, 'store/shared/turn-records.ts'));

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const SPAN = 30 * HOUR;
const AGENTS = ['alpha', 'beta', 'gamma', 'delta'];

/** Session `index`: its key, trace, agent, start, and steps. */
function turnOf(index: number) {
  const ts = NOW - SPAN + Math.floor((index * SPAN) / sessions);
  const agentId = AGENTS[index % AGENTS.length] ?? 'alpha';
  const withTool = index % 5 === 0;
  const budget = (step: number): TurnStep => ({
    kind: 'context_budget',
    ts: ts + step,
    data: { step, windowTokens: 128_000, assembledInputTokens: 900 + (index % 300), verdict: 'fits' },
  });
  const call = (step: number): TurnStep => ({
    kind: 'model_call',
    ts: ts + step + 1,
    data: {
      step,
      provider: 'local',
      model: 'small',
      inputTokens: 900,
      outputTokens: 40,
      latencyMs: 120 + (index % 50),
    },
  });
  const steps: TurnStep[] = [
    { kind: 'turn_start', ts, data: { agentId, channel: 'openai' } },
    budget(1),
    call(1),
    ...(withTool
      ? [
          { kind: 'tool_call', ts: ts + 3, data: { step: 1, tool: 'web_search', ok: index % 15 !== 0, ms: 80 } },
          budget(2),
          call(2),
        ]
      : []),
    {
      kind: 'turn_end',
      ts: ts + 5,
      data: { finishReason: 'stop', steps: withTool ? 2 : 1, inputTokens: 900, outputTokens: 40 },
    },
  ];
  return {
    traceId: `trace-${index}`,
    sessionKey: `${agentId}:openai-api:openai:chatcmpl-${index}`,
    agentId,
    channel: 'openai',
    messageId: `chatcmpl-${index}`,
    startedAt: ts,
    isSynthetic: index % 50 === 0,
    end: { endReason: 'completed', degraded: index % 40 === 0, endedAt: ts + 6 },
    steps,
  };
}

function writesOf(index: number): EvidenceWrite[] {
  const turn = turnOf(index);
  if (hasTurnWrites) return [{ type: 'turn', turn }];
  const { end, steps, ...entry } = turn;
  return [
    { type: 'session_start', entry },
    ...steps.map((step): EvidenceWrite => ({ type: 'trajectory', record: { ...step, ...entry } })),
    { type: 'session_end', end: { traceId: turn.traceId, ...end } },
  ];
}

async function fill(port: EvidencePort): Promise<void> {
  let batch: EvidenceWrite[] = [];
  for (let index = 0; index < sessions; index += 1) {
    batch.push(...writesOf(index));
    if (batch.length >= 2_000) {
      await port.append(batch);
      batch = [];
    }
  }
  await port.append(batch);
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const window = { sinceMs: NOW - 24 * HOUR, untilMs: NOW };
const EXPLAINED = 200;

/** Each read as the report makes it, with a digest of its answer so two checkouts' answers can be compared. */
const READS: Record<string, (port: EvidencePort) => Promise<string>> = {
  async explainPerSession(port) {
    let digest = 0;
    for (let n = 0; n < EXPLAINED; n += 1) {
      const key = turnOf((n * 7919) % sessions).sessionKey;
      const index = await port.sessionIndexOf(key);
      const count = await port.trajectoryCountOf(key);
      const records = await port.trajectoryOf(key, { newest: 20_000 });
      digest += index.length + count + records.reduce((sum, record) => sum + record.seq + record.kind.length, 0);
    }
    return String(digest);
  },
  async searchTraces(port) {
    const rows = await port.searchTraces({
      days: [day(NOW), day(NOW - 24 * HOUR)],
      includeSynthetic: false,
      limit: 200,
    });
    return `${rows.length}:${rows[0]?.traceId}:${rows.at(-1)?.traceId}`;
  },
  async searchTracesWhere(port) {
    const rows = await port.searchTraces({
      days: [day(NOW), day(NOW - 24 * HOUR)],
      includeSynthetic: false,
      conditions: [{ field: 'degraded', op: '=', value: true }],
      limit: 1_000,
    });
    return `${rows.length}:${rows[0]?.traceId}:${rows.at(-1)?.traceId}`;
  },
  async sessionIndexIn(port) {
    const { rows, total } = await port.sessionIndexIn({ ...window, includeSynthetic: false, limit: 50_000 });
    return `${rows.length}/${total}:${rows.at(-1)?.traceId}`;
  },
  async trajectoryOfTurnsIn(port) {
    const kinds = ['tool_call', 'breaker', 'turn_end', 'model_error'];
    const { rows, total } = await port.trajectoryOfTurnsIn({
      ...window,
      includeSynthetic: false,
      kinds,
      limit: 200_000,
    });
    return `${rows.length}/${total}:${rows.at(-1)?.traceId}:${rows.at(-1)?.kind}`;
  },
  async trajectoryOfKind(port) {
    const rows = await port.trajectoryOfKind({ kind: 'context_budget', newest: 5_000 });
    return `${rows.length}:${rows[0]?.traceId}:${rows.at(-1)?.traceId}:${rows.at(-1)?.seq}`;
  },
  async trajectoryOfKindOfAgent(port) {
    const rows = await port.trajectoryOfKind({ kind: 'context_budget', agentId: 'beta', newest: 5_000 });
    return `${rows.length}:${rows[0]?.traceId}:${rows.at(-1)?.traceId}`;
  },
};

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;

async function measure(store: StorePorts, analyze?: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await fill(store.evidence);
  // PostgreSQL's autovacuum analyzes a freshly filled table within a minute; the reads are planned as after that.
  await analyze?.();
  console.log(`filled ${sessions} sessions in ${Math.round(performance.now() - started)} ms (${src})`);
  for (const [name, read] of Object.entries(READS)) {
    if (only !== undefined && !only.includes(name)) continue;
    const answer = await read(store.evidence);
    const times: number[] = [];
    for (let run = 0; run < repeats; run += 1) {
      const start = performance.now();
      await read(store.evidence);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const perCall = name === 'explainPerSession' ? ` (${EXPLAINED} sessions)` : '';
    console.log(
      `${name.padEnd(24)} median ${percentile(times, 0.5).toFixed(1)} ms  p95 ${percentile(times, 0.95).toFixed(1)} ms${perCall}  answer ${answer}`,
    );
  }
}

type OpenSqlite = (options: { path: string }) => StorePorts;
type OpenPostgres = (options: { url: string }) => Promise<StorePorts>;

if (onPostgres) {
  const { startPostgresServer } = await import('../../test/support/postgres-process.js');
  const { default: pg } = await import('pg');
  const { openPostgresStore } = (await import(pathToFileURL(join(src, 'store/postgres/index.ts')).href)) as {
    openPostgresStore: OpenPostgres;
  };
  const server = await startPostgresServer();
  try {
    const database = await server.freshDatabase({ empty: true });
    const store = await openPostgresStore({ url: database.url });
    try {
      await measure(store, async () => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        await client.query('ANALYZE');
        await client.end();
      });
    } finally {
      await store.close();
    }
  } finally {
    await server.stop();
  }
} else {
  const { openSqliteStore } = (await import(pathToFileURL(join(src, 'store/sqlite/index.ts')).href)) as {
    openSqliteStore: OpenSqlite;
  };
  const dir = mkdtempSync(join(tmpdir(), 'evidence-reads-'));
  const store = openSqliteStore({ path: join(dir, 'gateway.db') });
  try {
    await measure(store);
  } finally {
    await store.close();
    if (keep) console.log(`kept ${join(dir, 'gateway.db')}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
