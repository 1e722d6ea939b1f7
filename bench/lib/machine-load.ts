// How much CPU other processes used while a run measured: the benchmarks share the machine, so say when they did.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';

export interface CpuSnapshot {
  atMs: number;
  /** User + system time of this process's main thread (where the servers under test run), or undefined off Linux. */
  mainThreadSec: number | undefined;
  /** User + nice + system time of the whole machine in seconds, or undefined where /proc/stat is missing. */
  machineBusySec: number | undefined;
  /** User + system time of this process (all its threads) in seconds. */
  ownSec: number;
}

/** USER_HZ: the unit of /proc/stat; 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SEC = 100;

function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
    const [label, user, nice, system] = line.trim().split(/\s+/);
    if (label !== 'cpu' || user === undefined || nice === undefined || system === undefined) return undefined;
    // irq, softirq and steal are left out: loopback traffic of this very process is partly billed there.
    return (Number(user) + Number(nice) + Number(system)) / CLOCK_TICKS_PER_SEC;
  } catch {
    return undefined;
  }
}

/** The main thread's CPU time: on Linux its task id is the process id; fields 14 and 15 are utime and stime. */
function mainThreadSeconds(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1');
    // The command name (field 2) may contain spaces, so count fields from the closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / CLOCK_TICKS_PER_SEC : undefined;
  } catch {
    return undefined;
  }
}

export function cpuSnapshot(): CpuSnapshot {
  const { user, system } = process.cpuUsage();
  return {
    atMs: performance.now(),
    mainThreadSec: mainThreadSeconds(),
    machineBusySec: machineBusySeconds(),
    ownSec: (user + system) / 1e6,
  };
}

/**
 * CPU time the main thread spent between two snapshots, in µs per operation: unlike throughput, this hardly
 * moves when other processes compete for the cores. 10 ms resolution, so only meaningful over seconds.
 */
export function mainThreadCpuUsPerOp(start: CpuSnapshot, end: CpuSnapshot, ops: number): number {
  if (start.mainThreadSec === undefined || end.mainThreadSec === undefined || ops === 0) return Number.NaN;
  return ((end.mainThreadSec - start.mainThreadSec) * 1e6) / ops;
}

/**
 * Share of the machine's total CPU capacity (all cores) used by other processes between two snapshots:
 * 0.25 on 2 cores means half a core went elsewhere. NaN when the platform does not say.
 */
export function otherProcessesShare(start: CpuSnapshot, end: CpuSnapshot): number {
  if (start.machineBusySec === undefined || end.machineBusySec === undefined) return Number.NaN;
  const wallSec = (end.atMs - start.atMs) / 1000;
  if (wallSec <= 0) return Number.NaN;
  const otherSec = end.machineBusySec - start.machineBusySec - (end.ownSec - start.ownSec);
  return Math.max(0, otherSec / (wallSec * cpus().length));
}

/** Above this share of the machine taken by other processes, a run counts as contended. */
export const CONTENDED_SHARE = 0.1;

export interface QuietWait {
  /** True when the machine was quiet before `maxWaitMs` ran out. */
  isQuiet: boolean;
  waitedMs: number;
  /** Share other processes used over the last sample. */
  lastShare: number;
}

/**
 * Waits until other processes use less than `threshold` of the machine over a `sampleMs` sample, at most
 * `maxWaitMs`; then the run goes ahead anyway (and reports what it shared the machine with).
 */
export async function waitForQuietMachine({
  threshold = CONTENDED_SHARE,
  sampleMs = 500,
  maxWaitMs = 30_000,
} = {}): Promise<QuietWait> {
  const startedAt = performance.now();
  for (;;) {
    const before = cpuSnapshot();
    await new Promise((resolve) => setTimeout(resolve, sampleMs));
    const share = otherProcessesShare(before, cpuSnapshot());
    const waitedMs = performance.now() - startedAt;
    // NaN (no /proc/stat) means there is nothing to wait for.
    if (!(share >= threshold)) return { isQuiet: true, waitedMs, lastShare: share };
    if (waitedMs >= maxWaitMs) return { isQuiet: false, waitedMs, lastShare: share };
  }
}
