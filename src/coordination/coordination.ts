// What coordination gives the rest of the gateway, whichever backend (local or Redis) provides it.
import type { BudgetLedger, SharedLedgerDeps } from '../budgets/types.js';
import type { RateCounter } from './types.js';
import type { EventFeed } from './event-feed.js';
import type { Instances } from './instances.js';
import type { Leases } from './leases.js';
import type { PeerChannel } from './peer-channel.js';
import type { SessionLocks } from './session-locks.js';

/**
 * A WebSocket notification for a client whose socket may be on another replica (null: every client), or with
 * `audience: 'admins'` for the admin tokens' sockets only (clientId null).
 */
export interface PeerNotification {
  clientId: string | null;
  method: string;
  params: unknown;
  audience?: 'admins';
}

/** Scheduled jobs changed on some replica (cron.add, update, remove): the others look at the jobs again. */
export type JobsChanged = Record<string, never>;

/** A token id whose secret stopped working (revoke, rotate): its sockets close on every replica. */
export interface RetiredToken {
  clientId: string;
}

/** A run.kill or lease.revoke of a run tree another replica runs: that replica stops it as if called there. */
export interface RunStop {
  runId: string;
  rootRunId: string;
  reason: 'killed' | 'revoked';
  by: string;
}

export interface Coordination {
  readonly kind: 'local' | 'redis';
  readonly locks: SessionLocks;
  readonly instances: Instances;
  readonly leases: Leases;
  /**
   * The gateway.rateLimit counters (keys `token:<id>` or `ip:<address>`): the HTTP surfaces and the scheduler's
   * fires count in them; in process (local) or shared by every replica (redis).
   */
  readonly rateCounter: RateCounter;
  /** The /api/events feed shared by replicas; undefined: each process numbers its own events. */
  readonly eventFeed?: EventFeed;
  readonly notifications: PeerChannel<PeerNotification>;
  readonly retiredTokens: PeerChannel<RetiredToken>;
  readonly jobChanges: PeerChannel<JobsChanged>;
  readonly runStops: PeerChannel<RunStop>;
  /**
   * How often to look for runs whose instance has gone, in ms; undefined: once at startup, which is enough when
   * only this process runs and any other owner was an earlier process.
   */
  readonly orphanSweepMs?: number;
  /**
   * The budget ledger every replica shares (Lua scripts in Redis); absent for local coordination, whose budgets are
   * counted in process (createBudgetLedger).
   */
  readonly budgetLedger?: (deps: SharedLedgerDeps) => BudgetLedger;
  /** Answers once the shared backend (Redis) answers, for /ready; absent for local coordination, which is in process. */
  ping?(): Promise<void>;
  /** Releases connections and timers; this instance stops counting as alive. */
  close(): Promise<void>;
}
