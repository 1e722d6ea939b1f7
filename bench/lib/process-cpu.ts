// CPU time of whole process trees read from /proc (Linux), for servers that run outside the bench process.
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc/<pid>/stat times; 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SEC = 100;

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime: the process's own CPU and that of its children it has reaped, in ticks. */
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) may contain spaces, so count fields from the closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [ppid, utime, stime, cutime, cstime] = [fields[1], fields[11], fields[12], fields[13], fields[14]].map(
      Number,
    );
    if (
      ppid === undefined ||
      utime === undefined ||
      stime === undefined ||
      cutime === undefined ||
      cstime === undefined
    )
      return undefined;
    const ticks = utime + stime + cutime + cstime;
    return Number.isFinite(ticks) && Number.isFinite(ppid) ? { ppid, ticks } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by each named group of process trees (a root pid and every live descendant; a child that
 * exited and was reaped is in its parent's cutime), e.g. a PostgreSQL postmaster and its backends. One scan of /proc
 * serves every group; a group whose root cannot be read is NaN.
 */
export function processTreesCpuSec(groups: Readonly<Record<string, readonly number[]>>): Record<string, number> {
  const stats = new Map<number, ProcStat>();
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    entries = [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (stat === undefined) continue;
    stats.set(pid, stat);
    const siblings = children.get(stat.ppid);
    if (siblings === undefined) children.set(stat.ppid, [pid]);
    else siblings.push(pid);
  }
  const treeTicks = (root: number): number => {
    const own = stats.get(root);
    if (own === undefined) return Number.NaN;
    let ticks = own.ticks;
    for (const child of children.get(root) ?? []) {
      const childTicks = treeTicks(child);
      if (!Number.isNaN(childTicks)) ticks += childTicks;
    }
    return ticks;
  };
  const seconds: Record<string, number> = {};
  for (const [name, roots] of Object.entries(groups)) {
    seconds[name] = roots.reduce((sum, root) => sum + treeTicks(root), 0) / CLOCK_TICKS_PER_SEC;
  }
  return seconds;
}
