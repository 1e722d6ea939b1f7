// A throwaway redis-server (Debian's /usr/bin/redis-server) on a free port in a temp dir, one per test file:
//
//   const redis = await startRedisServer();   // redis.url is redis://127.0.0.1:<port>
//   ...
//   await redis.stop();                        // kills it and removes its dir
//
// Nothing is persisted (`--save ''`, `--appendonly no`), so a stopped server leaves nothing behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Process id of the server. */
  readonly pid: number;
  /** Stops the server (SIGKILL if it does not exit in time) and removes its temp dir. */
  stop(): Promise<void>;
}

/** The redis-server binary started (REDIS_SERVER_BIN, else Debian's path). */
export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
/** How long a server may take to print that it accepts connections before the start is retried, in ms. */
const READY_TIMEOUT_MS = 10_000;
/** Another process may take the probed port before redis binds it; a start is retried this many times. */
const START_ATTEMPTS = 3;
const STOP_TIMEOUT_MS = 5_000;

function waitUntilReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not become ready: ${output.slice(-500)}`)),
      READY_TIMEOUT_MS,
    );
    function fail(error: Error): void {
      clearTimeout(timer);
      reject(error);
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${String(code)}: ${output.slice(-500)}`)));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt += 1) {
    const port = await freePort();
    const child = spawn(
      REDIS_SERVER_BIN,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'notice',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      await waitUntilReady(child);
    } catch (error) {
      lastError = error;
      await stopProcess(child);
      continue;
    }
    // The ready line has been seen; later output is not read, so the pipes must not fill up and block the server.
    child.stdout?.resume();
    child.stderr?.resume();
    if (child.pid === undefined) throw new Error('redis-server has no pid');
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      pid: child.pid,
      async stop() {
        await stopProcess(child);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError instanceof Error ? lastError : new Error('redis-server did not start');
}
