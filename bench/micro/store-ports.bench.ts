// CPU per call of the CRUD ports on the request path, on SQLite: a token looked up by its secret's hash (an API token's
// every request), a response saved then read (POST /v1/responses with previous_response_id), an audit batch appended,
// a run created, finished and read.
//
//   npx tsx bench/micro/store-ports.bench.ts [--calls 20000] [--warmup 5000] [--runs 3] [--src /path/to/other/checkout/src]
//
// Opens a fresh file through openSqliteStore (WAL, migrations) and calls each port `--calls` times after `--warmup`
// unmeasured calls, one call at a time; the CPU time (process.cpuUsage, user + system) per call is the median of
// `--runs` runs. `--src` measures another checkout's store with this same driver (e.g. the code before a change).
// Lives in bench/micro/ so that bench/run-all.ts does not pick it up.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AuditRow, StorePorts } from '../../src/store/index.js';

const value = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
};
const calls = Number(value('--calls') ?? 20_000);
const warmup = Number(value('--warmup') ?? 5_000);
const runs = Number(value('--runs') ?? 3);
const src = resolve(value('--src') ?? fileURLToPath(new URL('../../src', import.meta.url)));

type OpenStore = (options: { path: string }) => StorePorts;
const { openSqliteStore } = (await import(pathToFileURL(join(src, 'store/sqlite/index.ts')).href)) as {
  openSqliteStore: OpenStore;
};

const TOKENS = 100;
const auditRow = (id: string): AuditRow => ({
  id,
  tenantId: 'default',
  agentId: 'default',
  ts: 1,
  kind: 'rpc',
  classification: 'write',
  action: 'sessions.send',
  actor: 'rpc-client',
  outcome: 'ok',
  severity: 'info',
  traceId: null,
  refs: '{}',
});

/** The scenarios: each is one call given its sequence number. */
function scenarios(store: StorePorts): Record<string, (index: number) => Promise<unknown>> {
  return {
    'tokens.findBySecretHash': (index) => store.tokens.findBySecretHash(`hash-${index % TOKENS}`),
    'responses.save + read': async (index) => {
      const id = `resp_${index}`;
      await store.responses.save(
        {
          responseId: id,
          sessionKey: 'default:a:b',
          clientId: 'c',
          createdAt: index,
          status: 'completed',
          isBackground: false,
        },
        '{"id":"x"}',
      );
      return store.responses.read(id);
    },
    'audit.append (batch of 10)': (index) =>
      store.audit.append(Array.from({ length: 10 }, (_, row) => auditRow(`a-${index}-${row}`))),
    'runs.create + finish + get': async (index) => {
      const runId = `run-${index}`;
      await store.runs.create({
        runId,
        rootRunId: runId,
        kind: 'spawn',
        parentKey: null,
        sessionKey: 'default:a:b',
        agentId: 'default',
        task: 't',
        status: 'running',
        requestedBy: null,
        startedAt: index,
        completedAt: null,
        response: null,
        tokensUsed: null,
        costUsd: null,
        error: null,
        ownerInstance: 'i',
        heartbeatAt: index,
      });
      await store.runs.finish(runId, {
        status: 'completed',
        completedAt: index + 1,
        response: 'ok',
        tokensUsed: { input: 1, output: 2, total: 3 },
        costUsd: 0,
        error: null,
      });
      return store.runs.get(runId);
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const dir = await mkdtemp(join(tmpdir(), 'store-ports-bench-'));
try {
  const results = new Map<string, number[]>();
  for (let run = 0; run < runs; run += 1) {
    const store = openSqliteStore({ path: join(dir, `run-${run}.db`) });
    for (let index = 0; index < TOKENS; index += 1)
      await store.tokens.create({ id: `t${index}`, secretHash: `hash-${index}`, scopes: ['rpc'], createdAt: '2026' });
    let offset = 0;
    for (const [name, call] of Object.entries(scenarios(store))) {
      for (let index = 0; index < warmup; index += 1) await call(offset + index);
      offset += warmup;
      const start = process.cpuUsage();
      for (let index = 0; index < calls; index += 1) await call(offset + index);
      offset += calls;
      const used = process.cpuUsage(start);
      results.set(name, [...(results.get(name) ?? []), (used.user + used.system) / calls]);
    }
    await store.close();
  }
  console.log(`src: ${src}`);
  for (const [name, values] of results) console.log(`${name.padEnd(30)} ${median(values).toFixed(1)} us CPU per call`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
