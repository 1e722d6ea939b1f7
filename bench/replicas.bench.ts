// POST /v1/chat/completions at c=32 on two gateway processes sharing one PostgreSQL and one Redis, the connections
// dealt in turn between them, against one gateway process on SQLite (issue 16). Both sides run the same fake LLM.
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { checkRun, isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { chatLoad, isCompletion } from './chat-completions.bench.js';
import { BENCH_AGENT, startBenchLlm, type BenchLlm } from './lib/fake-llm.js';
import { newBenchToken, startGatewayProcess, type GatewayProcess } from './lib/gateway-process.js';
import { runLoadSegments } from './lib/load.js';
import type { LoadWindow } from './lib/load-run.js';
import { waitForQuietMachine } from './lib/machine-load.js';
import { formatRun, type ComparisonRow, type LoadResult } from './lib/measure.js';
import { processTreesCpuSec } from './lib/process-cpu.js';
import { formatPostgresPerRequest, formatRedisPerRequest, redisCommandStats } from './lib/shared-census.js';
import {
  POSTGRES_SKIP_REASON,
  postgresBinDir,
  startPostgresServer,
  type PostgresServer,
} from '../test/support/postgres-process.js';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../test/support/redis-server.js';

const SURFACE = 'POST /v1/chat/completions c=32, 2 replicas (PostgreSQL + Redis) vs 1 (SQLite)';
const CONNECTIONS = 32;
/** Replicas on the shared side; the connections are dealt in turn over them. */
const REPLICAS = 2;
/** Pool size of each replica (the default); the server allows 60 connections. */
const PG_CONNECTIONS_PER_REPLICA = 10;
/** After the replicas exit, their backends' statistics reach pg_stat_* within this long. */
const STATS_SETTLE_MS = 500;

/** One side started for one run: its gateway processes, the process trees whose CPU is counted, and how to stop it. */
interface RunningSide {
  replicas: GatewayProcess[];
  token: string;
  /** Named groups of process-tree roots: `replicas` always, and the shared servers on the shared side. */
  cpuGroups: Record<string, number[]>;
  /** The shared side's Redis and PostgreSQL work for the whole run (warm-up included), per request. */
  census?: (requests: number) => Promise<string[]>;
  close(): Promise<void>;
}

interface Side {
  label: string;
  start(llm: BenchLlm, round: number): Promise<RunningSide>;
}

const SQLITE_SIDE: Side = {
  label: '1 replica, SQLite',
  async start(llm) {
    const token = newBenchToken();
    const replica = await startGatewayProcess({ llmBaseUrl: llm.baseUrl, token });
    return { replicas: [replica], token, cpuGroups: { replicas: [replica.pid] }, close: () => replica.close() };
  },
};

function sharedSide(pg: PostgresServer, redis: RedisServer, postmasterPid: number): Side {
  return {
    label: `${REPLICAS} replicas, PG + Redis`,
    async start(llm, round) {
      const token = newBenchToken();
      // A fresh database (from the migrated template) and key prefix per run, so no run reads another's rows or stream.
      const database = await pg.freshDatabase();
      const extra = {
        storage: { kind: 'postgres' as const, url: database.url, maxConnections: PG_CONNECTIONS_PER_REPLICA },
        coordination: { kind: 'redis' as const, url: redis.url, keyPrefix: `agw-bench-${round}-${Date.now()}:` },
      };
      const started = await Promise.allSettled(
        Array.from({ length: REPLICAS }, () => startGatewayProcess({ llmBaseUrl: llm.baseUrl, token, extra })),
      );
      const replicas = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      const failed = started.find((result) => result.status === 'rejected');
      if (failed !== undefined) {
        await Promise.all(replicas.map((replica) => replica.close()));
        await database.drop();
        throw failed.reason;
      }
      const redisBefore = await redisCommandStats(redis.url);
      let isClosed = false;
      const close = async () => {
        if (isClosed) return;
        isClosed = true;
        await Promise.all(replicas.map((replica) => replica.close()));
      };
      return {
        replicas,
        token,
        cpuGroups: { replicas: replicas.map((replica) => replica.pid), postgres: [postmasterPid], redis: [redis.pid] },
        async census(requests) {
          const redisLine = formatRedisPerRequest(redisBefore, await redisCommandStats(redis.url), requests);
          await close();
          await new Promise((resolve) => setTimeout(resolve, STATS_SETTLE_MS));
          return [
            `Redis per request: ${redisLine}`,
            `PostgreSQL per request: ${await formatPostgresPerRequest(database.url, requests)}`,
          ];
        },
        async close() {
          await close();
          await database.drop();
        },
      };
    },
  };
}

function cpuLine(groups: Record<string, number>, llmUsPerOp: number): string {
  const parts = Object.entries(groups).map(
    ([name, usPerOp]) => `${name} ${Number.isNaN(usPerOp) ? 'n/a' : usPerOp.toFixed(0)}`,
  );
  return `CPU us per request: ${parts.join(', ')}, fake LLM (bench main thread) ${Number.isNaN(llmUsPerOp) ? 'n/a' : llmUsPerOp.toFixed(0)}`;
}

/**
 * One run of one side: a fresh fake LLM and fresh gateway processes, the bench's load (warm-up, then the window), the
 * CPU of every process tree over the window. The result's server figures are the replicas' (all of them): CPU per
 * request, and busy as their CPU share of one core each; the bench's own main thread only runs the fake LLM here.
 */
async function measureSide(side: Side, round: number, options: BenchOptions): Promise<LoadResult> {
  const quiet = await waitForQuietMachine({ maxWaitMs: 10_000 });
  if (!quiet.isQuiet)
    options.log(`  (other processes use ${Math.round(quiet.lastShare * 100)}% of the machine; measuring anyway)`);
  const llm = await startBenchLlm();
  try {
    const running = await side.start(llm, round);
    try {
      const [first, ...others] = running.replicas;
      if (first === undefined) throw new Error('no replica started');
      const window: LoadWindow = {
        warmupMs: options.warmupMs,
        warmupRequests: options.warmupRequests,
        durationMs: options.durationMs,
        maxRequests: options.maxRequests,
      };
      const spec = {
        ...chatLoad(
          {
            host: first.host,
            port: first.port,
            connections: CONNECTIONS,
            model: BENCH_AGENT,
            token: running.token,
            isStream: false,
          },
          window,
        ),
        replicaPorts: others.map((replica) => replica.port),
      };
      let cpuAtStart: Record<string, number> = {};
      let cpuAtEnd: Record<string, number> = {};
      const [result] = await runLoadSegments(
        spec,
        () => {
          cpuAtEnd = processTreesCpuSec(running.cpuGroups);
        },
        () => {
          cpuAtStart = processTreesCpuSec(running.cpuGroups);
        },
      );
      if (result === undefined) throw new Error('load worker reported no result');
      const requests = result.ops + result.errors;
      const usPerOp: Record<string, number> = {};
      for (const name of Object.keys(running.cpuGroups))
        usPerOp[name] = (((cpuAtEnd[name] ?? Number.NaN) - (cpuAtStart[name] ?? Number.NaN)) * 1e6) / requests;
      const replicaCpuSec = (cpuAtEnd.replicas ?? Number.NaN) - (cpuAtStart.replicas ?? Number.NaN);
      const sideCpuSec = Object.keys(running.cpuGroups).reduce(
        (sum, name) => sum + (cpuAtEnd[name] ?? 0) - (cpuAtStart[name] ?? 0),
        0,
      );
      const amended: LoadResult = {
        ...result,
        // The machine-load figure counts every other process; the side's own processes are not "other" here.
        otherCpu: Math.max(0, result.otherCpu - sideCpuSec / ((result.elapsedMs / 1000) * cpus().length)),
        serverCpuUsPerOp: usPerOp.replicas ?? Number.NaN,
        serverBusy: replicaCpuSec / (result.elapsedMs / 1000) / running.replicas.length,
      };
      checkRun(`${SURFACE} ${side.label}`, amended, isCompletion);
      options.log(formatRun(`#${round} ${side.label}`, amended));
      options.log(`    ${cpuLine(usPerOp, result.serverCpuUsPerOp)}`);
      const census = await running.census?.(result.warmupOps + result.ops + result.errors);
      for (const line of census ?? []) options.log(`    ${line}`);
      return amended;
    } finally {
      await running.close();
    }
  } finally {
    await llm.close();
  }
}

export async function run(options: BenchOptions): Promise<ComparisonRow[]> {
  if (!wantsSurface(options, SURFACE)) return [];
  if (postgresBinDir === undefined || !existsSync(REDIS_SERVER_BIN)) {
    const missing =
      postgresBinDir === undefined
        ? POSTGRES_SKIP_REASON
        : `skipped: ${REDIS_SERVER_BIN} not found; .ci/run installs the redis-server package`;
    options.log(`replicas bench ${missing}`);
    return [];
  }
  options.log(
    `${SURFACE} (${CONNECTIONS} connections x 1 in flight; every gateway is its own process; PostgreSQL with its durability defaults)`,
  );
  const [pg, redis] = await Promise.all([startPostgresServer({ durable: true }), startRedisServer()]);
  try {
    const shared = sharedSide(pg, redis, await pg.serverPid());
    const row: ComparisonRow = {
      surface: SURFACE,
      connections: CONNECTIONS,
      depth: 1,
      target: {},
      baseline: [],
      gateway: [],
    };
    for (let round = 1; round <= options.rounds; round += 1) {
      // Alternate which side goes first, so neither always runs on a cooler or warmer machine.
      const order = round % 2 === 1 ? [SQLITE_SIDE, shared] : [shared, SQLITE_SIDE];
      for (const side of order)
        (side === SQLITE_SIDE ? row.baseline : row.gateway).push(await measureSide(side, round, options));
    }
    return [row];
  } finally {
    await Promise.allSettled([pg.stop(), redis.stop()]);
  }
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
