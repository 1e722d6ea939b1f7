// GET /ws: upgrades, authenticates, rate- and size-limits JSON-RPC frames per connection, and pushes notifications.
import type { Caller } from '../server/types.js';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import type { Logger } from 'pino';
import type { GatewaySection } from '../config/index.js';
import { maskUnknown, wsOriginRefused } from '../errors.js';
import { dispatchJsonRpcText, type Dispatcher } from '../rpc/index.js';
import { bearerSecret, grantsMethodScope, type Authenticator } from '../server/index.js';
import { frameByteCap, socketClassWithFrameCap } from './frame-limit.js';
import { startHeartbeat } from './heartbeat.js';
import type { Connection, ConnectionState } from './types.js';
import { WS_LIMITS } from './limits.js';
import {
  BINARY_FRAME,
  CLOSE_GOING_AWAY,
  CLOSE_UNAUTHORIZED,
  notification,
  oversizeMessage,
  RATE_LIMITED,
  SHUTDOWN_REASON,
} from './messages.js';
import { isOriginAllowed } from './origin.js';
import { createSlidingWindowLimiter } from './sliding-window.js';
import { refuseUpgrade } from './upgrade-refusal.js';
import { parseTraceparent, type TraceParent } from '../tracing/index.js';

export interface WsGateway {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Sends a notification to the connections of `clientId`, or to every connection when the client cannot be
   * determined (`clientId` null; spec: "Server notifications"). A named client with no open socket gets
   * nothing: its results are never handed to other clients. Notifications carry turn results, so only sockets
   * whose token may call agent.* receive them (never mcp-client or api ones). Returns how many sockets it was sent to.
   */
  notify(clientId: string | null, method: string, params: unknown): number;
  /**
   * Sends a notification to the connections of admin tokens only (that may also receive turn results): results of
   * sessions no token owns (a webhook's), which only admins may read. Returns how many sockets it was sent to.
   */
  notifyAdmins(method: string, params: unknown): number;
  connectionCount(): number;
  /** Closes every socket of `clientId` with 4001 (its token was revoked or rotated). Returns how many. */
  disconnectClient(clientId: string): number;
  /** Refuses new upgrades and closes every socket with 1001 "Server shutting down". */
  close(): Promise<void>;
}

export interface WsGatewayDeps {
  gateway: Pick<GatewaySection, 'wsHeartbeatMs' | 'wsMessageRateLimit' | 'wsMaxMessageBytes' | 'headersTimeoutMs'>;
  authenticator: Authenticator;
  dispatcher: Dispatcher;
  log: Logger;
  now: () => number;
  /** gateway.cors.origins as it is now (it changes live): browser origins besides the gateway's own that may connect. */
  allowedOrigins?: () => readonly string[];
  /** Told the client id of each frame refused by the message rate limit: security:warn counts its bursts. */
  onRefused?: (source: string) => void;
}

/** How often open sockets re-check their token (revocations made outside this process). */
export const REVALIDATE_INTERVAL_MS = WS_LIMITS.revalidateIntervalMs;

function tokenFromUpgrade(request: IncomingMessage): string | undefined {
  const header = bearerSecret(request.headers.authorization);
  if (header !== undefined) return header;
  const query = request.url?.split('?', 2)[1];
  return query === undefined ? undefined : (new URLSearchParams(query).get('token') ?? undefined);
}

export function createWsGateway({
  gateway,
  authenticator,
  dispatcher,
  log,
  now,
  allowedOrigins = () => [],
  onRefused,
}: WsGatewayDeps): WsGateway {
  const maxPayload = frameByteCap(gateway.wsMaxMessageBytes);
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload,
    WebSocket: socketClassWithFrameCap(maxPayload),
  });
  const connections = new Set<Connection>();
  let isAccepting = true;
  let nextConnectionId = 1;

  const stopHeartbeat = startHeartbeat({ intervalMs: gateway.wsHeartbeatMs, connections, now });

  // A token revoked or rotated by another process (the CLI) or by a hand edit reaches open sockets here; the
  // in-process paths close them at once through disconnectClient.
  async function revalidateSockets(): Promise<void> {
    for (const connection of [...connections]) {
      if (connection.state !== 'open') continue;
      const current = await authenticator.authenticate(connection.secret);
      if (current?.clientId === connection.caller.clientId || connection.state !== 'open') continue;
      setState(connection, 'closing');
      connection.inFlight.abort();
      connection.socket.close(CLOSE_UNAUTHORIZED, 'Token revoked');
    }
  }
  const revalidation = setInterval(() => {
    revalidateSockets().catch((error: unknown) => log.error({ err: error }, 'could not revalidate websocket tokens'));
  }, REVALIDATE_INTERVAL_MS);
  revalidation.unref();

  function send(connection: Connection, text: string): void {
    if (connection.state === 'open' && connection.socket.readyState === WebSocket.OPEN) connection.socket.send(text);
  }

  async function onMessage(connection: Connection, data: RawData, isBinary: boolean): Promise<void> {
    // A socket being closed (shutdown, revoked token) runs nothing more.
    if (connection.state !== 'open') return;
    if (!connection.limiter.tryAcquire(now())) {
      onRefused?.(`client:${connection.caller.clientId}`);
      return send(connection, RATE_LIMITED);
    }
    if (isBinary) return send(connection, BINARY_FRAME);
    const text = data.toString();
    // Spec: the size is measured in characters, before parsing.
    if (text.length > gateway.wsMaxMessageBytes)
      return send(connection, oversizeMessage(text.length, gateway.wsMaxMessageBytes));
    const outcome = await dispatchJsonRpcText(dispatcher, text, {
      caller: connection.caller,
      transport: 'ws',
      log: connection.log,
      signal: connection.inFlight.signal,
      ...(connection.trace === undefined ? {} : { traceId: connection.trace.traceId, trace: connection.trace }),
    });
    if (outcome !== null) send(connection, JSON.stringify(outcome));
  }

  function setState(connection: Connection, state: ConnectionState): void {
    connection.state = state;
    if (state === 'closed') {
      connections.delete(connection);
      connection.inFlight.abort();
    }
  }

  /**
   * Spec: a bad or missing token is closed with 4001 after the upgrade. `ws` would wait 30 s for the peer's
   * close frame; a peer that never authenticated gets no longer than a request head (DESIGN §3 "connections").
   */
  function refuseUnauthenticated(socket: WebSocket): void {
    const cutOff = setTimeout(() => socket.terminate(), gateway.headersTimeoutMs);
    cutOff.unref();
    socket.once('close', () => clearTimeout(cutOff));
    socket.on('error', (error) => log.debug({ err: error }, 'unauthenticated websocket error'));
    socket.close(CLOSE_UNAUTHORIZED, 'Unauthorized');
  }

  function accept(socket: WebSocket, caller: Caller, secret: string, trace: TraceParent | undefined): void {
    const connection: Connection = {
      socket,
      caller,
      secret,
      log: log.child({ connectionId: nextConnectionId++, clientId: caller.clientId }),
      state: 'open',
      isAlive: true,
      limiter: createSlidingWindowLimiter({
        maxEvents: gateway.wsMessageRateLimit.maxMessages,
        windowMs: gateway.wsMessageRateLimit.windowMs,
      }),
      inFlight: new AbortController(),
      mayReceiveResults: grantsMethodScope(caller, 'rpc', 'ws'),
      ...(trace === undefined ? {} : { trace }),
    };
    connections.add(connection);
    connection.log.debug('websocket connected');
    socket.on('pong', () => {
      connection.isAlive = true;
    });
    socket.on('message', (data, isBinary) => {
      onMessage(connection, data, isBinary).catch((error: unknown) => {
        connection.log.error({ err: error }, 'websocket message handling failed');
      });
    });
    socket.on('error', (error) => connection.log.warn({ err: error }, 'websocket error'));
    socket.on('close', (code) => {
      setState(connection, 'closed');
      connection.log.debug({ code }, 'websocket closed');
    });
  }

  return {
    handleUpgrade(request, socket, head) {
      const path = request.url?.split('?', 1)[0];
      if (path !== '/ws' || !isAccepting) {
        socket.end(
          `HTTP/1.1 ${isAccepting ? '404 Not Found' : '503 Service Unavailable'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        );
        return;
      }
      socket.on('error', (error) => log.debug({ err: error }, 'upgrade socket error'));
      // /ws is same-origin (README "CORS"): a page on another site gets no socket, whatever token it holds.
      if (!isOriginAllowed(request.headers, allowedOrigins())) {
        refuseUpgrade(socket, wsOriginRefused(String(request.headers.origin)));
        return;
      }
      const secret = tokenFromUpgrade(request);
      authenticator.authenticate(secret).then(
        (caller) => {
          if (socket.destroyed) return;
          wss.handleUpgrade(request, socket, head, (webSocket) => {
            if (caller === undefined) refuseUnauthenticated(webSocket);
            else accept(webSocket, caller, secret ?? '', parseTraceparent(request.headers.traceparent));
          });
        },
        (error: unknown) => {
          // The token store cannot be reached (PostgreSQL down): 503 with a retry hint, as on every HTTP route.
          refuseUpgrade(socket, maskUnknown(error, log, {}, 'could not authenticate a websocket upgrade'));
        },
      );
    },
    notify(clientId, method, params) {
      const text = notification(method, params);
      const targets = [...connections].filter(
        (connection) =>
          connection.state === 'open' &&
          connection.mayReceiveResults &&
          (clientId === null || connection.caller.clientId === clientId),
      );
      for (const connection of targets) send(connection, text);
      return targets.length;
    },
    notifyAdmins(method, params) {
      const text = notification(method, params);
      // Admin as session access reads it (sessions/session-access.ts): the scope, whatever the transport.
      const targets = [...connections].filter(
        (connection) =>
          connection.state === 'open' &&
          connection.mayReceiveResults &&
          grantsMethodScope(connection.caller, 'admin', 'http'),
      );
      for (const connection of targets) send(connection, text);
      return targets.length;
    },
    connectionCount: () => connections.size,
    disconnectClient(clientId) {
      const owned = [...connections].filter(
        (connection) => connection.caller.clientId === clientId && connection.state === 'open',
      );
      for (const connection of owned) {
        setState(connection, 'closing');
        connection.inFlight.abort();
        connection.socket.close(CLOSE_UNAUTHORIZED, 'Token revoked');
      }
      return owned.length;
    },
    async close() {
      isAccepting = false;
      stopHeartbeat();
      clearInterval(revalidation);
      const closing = [...connections].map(
        (connection) =>
          new Promise<void>((resolve) => {
            setState(connection, 'closing');
            connection.inFlight.abort();
            // A peer that never answers the close frame is cut off after a second.
            const cutOff = setTimeout(() => {
              connection.socket.terminate();
              resolve();
            }, 1000);
            cutOff.unref();
            connection.socket.once('close', () => {
              clearTimeout(cutOff);
              resolve();
            });
            connection.socket.close(CLOSE_GOING_AWAY, SHUTDOWN_REASON);
          }),
      );
      await Promise.all(closing);
      wss.close();
    },
  };
}
