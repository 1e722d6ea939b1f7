// Startup as a user sees it (issues 10, 33): `node dist/src/cli.bundle.mjs start` in a fresh AGENT_GATEWAY_HOME, timed from
// spawn to its first good GET /health, and its resident memory after 2 s idle; against a bare `node -e` server.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import type { FigureRow } from './lib/figures.js';
import { waitForQuietMachine } from './lib/machine-load.js';
import { freePort } from '../test/support/free-port.js';
import { residentMb, startAndTime, stopProcess } from './lib/process-start.js';

const CLI_PATH = fileURLToPath(new URL('../dist/src/cli.bundle.mjs', import.meta.url));
/** Issue 33's targets: the first /health within 0.3 s of start, at most 80 MB resident when idle. */
const MAX_START_MS = 300;
const MAX_IDLE_RSS_MB = 80;
/** How long the process idles after its first answer before its memory is read. */
const IDLE_MS = 2_000;

/** The baseline: node:http answering /health, started by `node -e` on the port in BENCH_PORT. */
const BARE_SERVER = `
const port = Number(process.env.BENCH_PORT);
require('node:http').createServer((request, response) => {
  const body = JSON.stringify({ status: 'ok', timestamp: new Date().toISOString() });
  response.writeHead(request.url === '/health' ? 200 : 404, { 'content-type': 'application/json; charset=utf-8' });
  response.end(body);
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

interface Side {
  label: string;
  /** node's arguments and environment for a start on `port` in `home`. */
  command(port: number, home: string): { args: string[]; env: NodeJS.ProcessEnv };
}

/** The caller's environment, without node flags meant for this process (e.g. a TypeScript loader). */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

const GATEWAY: Side = {
  label: 'gateway (node dist/src/cli.bundle.mjs start)',
  command: (port, home) => ({
    args: [CLI_PATH, 'start', '--port', String(port)],
    env: userEnv({ AGENT_GATEWAY_HOME: home }),
  }),
};
const BASELINE: Side = {
  label: 'baseline (node -e, node:http)',
  command: (port) => ({ args: ['-e', BARE_SERVER], env: userEnv({ BENCH_PORT: String(port) }) }),
};

interface RoundFigures {
  firstRunMs: number;
  startMs: number;
  idleRssMb: number;
}

/**
 * Two starts in one fresh home: the first run (the gateway writes config.yaml and secrets.yaml), stopped,
 * then a start over the existing config, whose memory is read after IDLE_MS.
 */
async function measureSide(side: Side): Promise<RoundFigures> {
  const home = await mkdtemp(join(tmpdir(), 'agent-gateway-startup-'));
  try {
    const startOnce = async () => {
      const port = await freePort();
      const { args, env } = side.command(port, home);
      return startAndTime(args, env, port);
    };
    const first = await startOnce();
    await stopProcess(first.child);
    const started = await startOnce();
    try {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      return { firstRunMs: first.startMs, startMs: started.startMs, idleRssMb: await residentMb(started.pid) };
    } finally {
      await stopProcess(started.child);
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function formatRound(label: string, figures: RoundFigures): string {
  return (
    `  ${label.padEnd(40)} first run ${figures.firstRunMs.toFixed(0).padStart(5)} ms  ` +
    `start ${figures.startMs.toFixed(0).padStart(5)} ms  RSS after ${IDLE_MS / 1000} s idle ${figures.idleRssMb.toFixed(1)} MB`
  );
}

export async function run(options: BenchOptions): Promise<FigureRow[]> {
  const surfaces = {
    start: 'startup: spawn to first GET /health',
    firstRun: 'startup: spawn to first GET /health, first run',
    rss: `startup: RSS after ${IDLE_MS / 1000} s idle`,
  };
  if (!Object.values(surfaces).some((surface) => wantsSurface(options, surface))) return [];
  const built = await stat(CLI_PATH).catch(() => undefined);
  if (built === undefined) {
    options.log(`startup bench skipped: ${CLI_PATH} is missing; run \`npm run build\` first`);
    return [];
  }
  options.log(`startup: ${CLI_PATH} (built ${built.mtime.toISOString()}), ${options.rounds} rounds per side`);
  const gateway: RoundFigures[] = [];
  const baseline: RoundFigures[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    const quiet = await waitForQuietMachine({ maxWaitMs: 10_000 });
    if (!quiet.isQuiet)
      options.log(`  (other processes use ${Math.round(quiet.lastShare * 100)}% of the machine; measuring anyway)`);
    // Alternate which side goes first, so neither always starts on a cooler or warmer machine.
    const order = round % 2 === 1 ? [BASELINE, GATEWAY] : [GATEWAY, BASELINE];
    for (const side of order) {
      const figures = await measureSide(side);
      (side === GATEWAY ? gateway : baseline).push(figures);
      options.log(formatRound(`#${round} ${side.label}`, figures));
    }
  }
  const row = (
    surface: string,
    unit: string,
    maxGateway: number,
    pick: (figures: RoundFigures) => number,
  ): FigureRow => ({
    kind: 'figure',
    surface,
    unit,
    baseline: baseline.map(pick),
    gateway: gateway.map(pick),
    maxGateway,
  });
  return [
    row(surfaces.start, 'ms', MAX_START_MS, (figures) => figures.startMs),
    row(surfaces.firstRun, 'ms', MAX_START_MS, (figures) => figures.firstRunMs),
    row(surfaces.rss, 'MB', MAX_IDLE_RSS_MB, (figures) => figures.idleRssMb),
  ].filter((figureRow) => wantsSurface(options, figureRow.surface));
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
