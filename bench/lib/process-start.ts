// Starts a server as its own node process, times it to its first good GET /health, reads its memory, stops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';

/** Pause between two /health probes while the process starts: the resolution of the time to listen. */
const PROBE_INTERVAL_MS = 5;
/** A process that does not answer /health within this long counts as failed to start. */
const START_TIMEOUT_MS = 15_000;
/** After SIGTERM a process gets this long to exit before SIGKILL. */
const STOP_TIMEOUT_MS = 5_000;
/** One /health probe that gets no answer within this long counts as a miss. */
const PROBE_TIMEOUT_MS = 1_000;
/** Only the last this-many characters of the child's stderr are kept, for the failure message. */
const MAX_STDERR_CHARS = 4_000;

export interface StartedProcess {
  child: ChildProcess;
  pid: number;
  /** From spawn to the first GET /health answered 200, in ms. */
  startMs: number;
}

function probeHealth(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode === 200));
      response.once('error', () => resolve(false));
    });
    request.once('error', () => resolve(false));
    request.setTimeout(PROBE_TIMEOUT_MS, () => request.destroy());
  });
}

/**
 * Spawns `node <args>` with `env` (nothing inherited from this process's node flags) and probes
 * http://127.0.0.1:<port><healthPath> (`/health` unless told) until it answers 200. Rejects, with the child's
 * stderr, when the child exits first or does not answer within START_TIMEOUT_MS (the child is then killed).
 */
export async function startAndTime(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  port: number,
  healthPath = '/health',
): Promise<StartedProcess> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr = (stderr + text).slice(-MAX_STDERR_CHARS);
  });
  let exitCode: number | null | undefined;
  child.once('exit', (code) => {
    exitCode = code;
  });
  for (;;) {
    if (await probeHealth(port, healthPath)) {
      const startMs = performance.now() - startedAt;
      if (child.pid === undefined) throw new Error('the child has no pid');
      return { child, pid: child.pid, startMs };
    }
    if (exitCode !== undefined)
      throw new Error(`node ${args.join(' ')} exited (code ${exitCode}) before answering ${healthPath}:\n${stderr}`);
    if (performance.now() - startedAt > START_TIMEOUT_MS) {
      await stopProcess(child);
      throw new Error(`node ${args.join(' ')} did not answer ${healthPath} within ${START_TIMEOUT_MS} ms:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
}

/** Resident memory of a process from /proc/<pid>/status (Linux), in MB of 10^6 bytes; NaN elsewhere. */
export async function residentMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'latin1');
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kib === undefined ? Number.NaN : (Number(kib) * 1024) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** SIGTERM, then SIGKILL after STOP_TIMEOUT_MS; resolves once the process has exited. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
