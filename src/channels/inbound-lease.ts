// Pulled inbound (Telegram's getUpdates loop, the IMAP inbox) runs on one replica at a time: the replica holding the
// connection's lease pulls, the others stand by and only send. A holder renews its lease every third of its ttl; one
// that stops releases it, one that crashed loses it at its ttl, and a standing-by replica takes over then.
import type { Logger } from 'pino';

/** The leases of src/coordination (one process holds every lease). */
export interface InboundLeases {
  acquire(name: string, ttlMs: number): Promise<boolean>;
  renew(name: string, ttlMs: number): Promise<boolean>;
  release(name: string): Promise<void>;
}

/** What pulls a connection's inbound, started while this replica holds the lease and stopped when it no longer does. */
export interface InboundPuller {
  start(): void | Promise<void>;
  stop(): Promise<void>;
  /** Another replica pulls: this one only sends (it may check the platform answers, for its health). */
  standby?(): void;
}

export interface InboundHold {
  /** Settles once the first try is over: pulling has started (or failed its first attempt), or another replica pulls. */
  readonly started: Promise<void>;
  /** Stops pulling (if this replica was) and gives the lease up, so another replica takes over at once. */
  stop(): Promise<void>;
}

/** Runs one connection's pulled inbound wherever it should run. */
export type PullInbound = (puller: InboundPuller) => InboundHold;

/** One process: nothing else could pull, so the puller runs from start to stop. */
export const pullInboundHere: PullInbound = (puller) => {
  const started = Promise.resolve(puller.start());
  return {
    started,
    async stop() {
      // Stopped first: a start still making its first attempt ends with it.
      await puller.stop();
      await started.catch(() => undefined);
    },
  };
};

export interface InboundLeaseOptions {
  leases: InboundLeases;
  /** How long a hold lasts without renewal: the longest a crashed holder's messages wait for another replica. */
  ttlMs: number;
  log: Logger;
}

/** The PullInbound of connection `channelId` under shared leases. */
export function pullInboundUnderLease(channelId: string, { leases, ttlMs, log }: InboundLeaseOptions): PullInbound {
  const name = `channel:${channelId}:inbound`;
  return (puller) => {
    let isHolding = false;
    let isStopped = false;
    let isStandingBy = false;
    let timer: NodeJS.Timeout | undefined;

    async function step(): Promise<void> {
      if (isHolding) {
        if (await leases.renew(name, ttlMs)) return;
        isHolding = false;
        log.warn({ channelId }, 'lost the inbound lease of a channel; another replica pulls its messages now');
        await puller.stop();
      }
      if (await leases.acquire(name, ttlMs)) {
        if (isStopped) return leases.release(name);
        isHolding = true;
        isStandingBy = false;
        log.info({ channelId }, 'this replica pulls the inbound messages of a channel');
        await puller.start();
      } else if (!isStandingBy) {
        isStandingBy = true;
        puller.standby?.();
      }
    }

    let stepping = Promise.resolve();
    function tick(): void {
      stepping = step()
        .catch(async (error: unknown) => {
          // Redis did not answer: the hold cannot be shown, so this replica stops pulling rather than risk two pulling.
          log.warn({ err: error, channelId }, 'the inbound lease of a channel could not be checked; not pulling');
          if (isHolding) {
            isHolding = false;
            await puller.stop().catch(() => undefined);
          }
        })
        .finally(() => {
          if (!isStopped) timer = setTimeout(tick, Math.max(1, Math.floor(ttlMs / 3))).unref();
        });
    }
    tick();

    async function release(): Promise<void> {
      isHolding = false;
      await puller.stop();
      await leases.release(name);
    }

    return {
      started: stepping,
      async stop() {
        isStopped = true;
        clearTimeout(timer);
        // Stopped first when pulling: a start still making its first attempt ends with it.
        if (isHolding) await release();
        await stepping;
        if (isHolding) await release();
      },
    };
  };
}
