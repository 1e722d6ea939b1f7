// Orchestrate scripts (issue 35): a run's start to its first tool call on a pre-started child (target 50 ms), and one
// bridged tool call's cost per call over calling the same function directly (target at most 1 ms more).
import { performance } from 'node:perf_hooks';
import { isEntryPoint, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import type { FigureRow } from './lib/figures.js';
import { killAllScriptRuns, prewarmScriptChildren, runScript } from '../src/orchestrate/sandbox/index.js';

const LIMITS = { timeoutMs: 60_000, memoryBytes: 64 * 1_048_576, stdoutBytes: 65_536, maxToolCalls: 10_000 };
/** Tool calls one measured script makes. */
const CALLS = 1_000;
const MAX_FIRST_CALL_MS = 50;
const MAX_CALL_MS = 1;

const echo = async (_tool: string, args: unknown): Promise<unknown> => args;

/** ms per call of the tool function called directly, as the baseline of a bridged call. */
async function directCallMs(): Promise<number> {
  const startedAt = performance.now();
  for (let index = 0; index < CALLS; index += 1) await echo('echo', { index });
  return (performance.now() - startedAt) / CALLS;
}

async function scriptMs(calls: number): Promise<{ durationMs: number; firstToolCallMs: number }> {
  await prewarmScriptChildren(1);
  const ran = await runScript({
    script: `let last; for (let i = 0; i < ${calls}; i++) last = await tools.echo({ i }); return last ?? null;`,
    limits: LIMITS,
    callTool: echo,
  });
  if (ran.exitCode !== 0) throw new Error(`the bench script failed: ${ran.error ?? ran.exitCode}`);
  return { durationMs: ran.durationMs, firstToolCallMs: ran.firstToolCallMs ?? Number.NaN };
}

export async function run(options: BenchOptions): Promise<FigureRow[]> {
  const surfaces = {
    first: 'orchestrate: run start to first tool call (pre-started child)',
    call: `orchestrate: one bridged tool call (${CALLS} per script) vs a direct call`,
  };
  if (!Object.values(surfaces).some((surface) => wantsSurface(options, surface))) return [];
  const first: number[] = [];
  const perCall: number[] = [];
  const direct: number[] = [];
  try {
    await scriptMs(1);
    for (let round = 1; round <= options.rounds; round += 1) {
      first.push((await scriptMs(1)).firstToolCallMs);
      const empty = await scriptMs(0);
      const full = await scriptMs(CALLS);
      perCall.push((full.durationMs - empty.durationMs) / CALLS);
      direct.push(await directCallMs());
      options.log(
        `  #${round} first call ${first.at(-1)?.toFixed(2)} ms, bridged ${perCall.at(-1)?.toFixed(4)} ms/call, direct ${direct.at(-1)?.toFixed(4)} ms/call`,
      );
    }
  } finally {
    killAllScriptRuns();
  }
  return [
    {
      kind: 'figure' as const,
      surface: surfaces.first,
      unit: 'ms',
      baseline: direct,
      gateway: first,
      maxGateway: MAX_FIRST_CALL_MS,
    },
    {
      kind: 'figure' as const,
      surface: surfaces.call,
      unit: 'ms',
      baseline: direct,
      gateway: perCall,
      maxGateway: MAX_CALL_MS,
    },
  ].filter((row) => wantsSurface(options, row.surface));
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
