// One WebSocket connection as the gateway and its heartbeat see it: socket, caller, state and limiter.
import type { TraceParent } from '../tracing/index.js';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Caller } from '../server/types.js';
import type { SlidingWindowLimiter } from './sliding-window.js';

export type ConnectionState = 'open' | 'closing' | 'closed';

export interface Connection {
  readonly socket: WebSocket;
  readonly caller: Caller;
  /** The secret the socket authenticated with, re-checked periodically; kept in memory only, never logged. */
  readonly secret: string;
  readonly log: Logger;
  state: ConnectionState;
  /** Set by a pong; the heartbeat terminates connections that did not answer the previous ping. */
  isAlive: boolean;
  readonly limiter: SlidingWindowLimiter;
  /** Aborts in-flight calls of this connection when it closes. */
  readonly inFlight: AbortController;
  /** Whether its token may call agent.* here, and so may receive turn results (session.completed). */
  readonly mayReceiveResults: boolean;
  /** The upgrade request's W3C traceparent: every call of the connection joins that trace. */
  readonly trace?: TraceParent;
}
