// Every wsHeartbeatMs: pushes the heartbeat notification, pings each socket, and ends those that missed the last pong.
import { WebSocket } from 'ws';
import { notification } from './messages.js';
import type { Connection } from './types.js';

export interface HeartbeatOptions {
  /** 0 disables the heartbeat (spec: gateway.wsHeartbeatMs). */
  intervalMs: number;
  connections: ReadonlySet<Connection>;
  now: () => number;
}

/** Starts the shared heartbeat timer; returns the function that stops it. */
export function startHeartbeat({ intervalMs, connections, now }: HeartbeatOptions): () => void {
  if (intervalMs === 0) return () => undefined;
  const timer = setInterval(function beat() {
    const text = notification('heartbeat', { ts: now() });
    for (const connection of connections) {
      if (connection.state !== 'open' || connection.socket.readyState !== WebSocket.OPEN) continue;
      if (!connection.isAlive) {
        connection.log.info('websocket missed a heartbeat pong; terminating');
        connection.socket.terminate();
        continue;
      }
      connection.isAlive = false;
      connection.socket.ping();
      connection.socket.send(text);
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
