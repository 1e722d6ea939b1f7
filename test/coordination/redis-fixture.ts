// Replicas for coordination tests: each a Redis coordination with its own connections and event bus, on one server.
import { createEventBus, type EventBus } from '../../src/events/index.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createCoordination, type Coordination, type CoordinationTimings } from '../../src/coordination/index.js';
import { createLogger } from '../../src/obs/logger.js';

export interface Replica {
  coordination: Coordination;
  events: EventBus;
}

/** Short periods so liveness and lock tests take a second, not the production 10 s. */
export const FAST_TIMINGS: Partial<CoordinationTimings> = {
  livenessTtlMs: 1_000,
  heartbeatMs: 100,
  orphanSweepMs: 200,
  lockTtlMs: 1_000,
  lockRenewMs: 200,
};

export async function startReplica(
  url: string,
  options: { keyPrefix?: string; replayEvents?: number; timings?: Partial<CoordinationTimings> } = {},
): Promise<Replica> {
  const log = createLogger({ level: 'silent' });
  const events = createEventBus({ now: Date.now, log });
  const coordination = await createCoordination({
    config: { kind: 'redis', url, keyPrefix: options.keyPrefix ?? 'test:', channelLeaseTtlMs: 15_000 },
    events,
    replayEvents: options.replayEvents ?? 1000,
    log,
    timings: options.timings ?? FAST_TIMINGS,
  });
  return { coordination, events };
}

export interface ReplicaProcess {
  /** The instance id of the replica in the child process. */
  instanceId: string;
  child: ChildProcess;
  /** SIGKILL: no shutdown code runs, so the liveness key stays until its TTL. */
  kill(): Promise<void>;
}

const REPLICA_SCRIPT = fileURLToPath(new URL('./replica-process.ts', import.meta.url));

/** A replica in its own process, for deaths that run no cleanup (kill -9). */
export function spawnReplicaProcess(url: string, keyPrefix = 'test:'): Promise<ReplicaProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', REPLICA_SCRIPT], {
    env: { ...process.env, REDIS_URL: url, KEY_PREFIX: keyPrefix, TIMINGS: JSON.stringify(FAST_TIMINGS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`replica process exited with ${String(code)}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^ready (\S+)$/m.exec(output);
      if (match?.[1] === undefined) return;
      resolve({
        instanceId: match[1],
        child,
        kill: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGKILL');
          }),
      });
    });
  });
}
