// Keeps unauthenticated clients from holding every connection (DESIGN §3 "connections"): a short body deadline for
// requests without a valid token, and a reserve of slots (and a per-address share) only probes and tokens may use.
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewaySection } from '../config/index.js';
import { connectionsCrowded } from '../errors.js';
import type { RequestAuth } from './request-auth.js';

export type ConnectionGuardLimits = Pick<
  GatewaySection,
  'maxConnections' | 'reservedConnections' | 'maxConnectionsPerAddress' | 'unauthenticatedBodyTimeoutMs'
>;

/** Probes a load balancer or monitor must always get through; they never carry a body. */
const PROBE_PATHS = new Set(['/health', '/api/health', '/ready']);

/** Unset reservedConnections keeps this share of maxConnections for probes and tokens. */
const DEFAULT_RESERVED_SHARE = 0.1;

/** What Node itself writes when a request's time runs out (server requestTimeout): a bare 408, then the socket closes. */
const REQUEST_TIMEOUT_REPLY = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Counts open sockets, in all and per client address, from the moment they connect until they close. */
function countSockets(app: FastifyInstance) {
  const perAddress = new Map<string, number>();
  let open = 0;
  // For TLS this sees the TCP socket; a request's TLS socket reports the same remote address.
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    open += 1;
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => {
      open -= 1;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
  return { open: () => open, fromAddress: (address: string) => perAddress.get(address) ?? 0 };
}

/**
 * The body must be in within `timeoutMs` of the head, read by a route or drained after a refusal (Node reads
 * the rest of a body nobody consumed before the socket takes its next request). Else the socket is closed.
 */
function armBodyDeadline(request: FastifyRequest, reply: FastifyReply, timeoutMs: number): void {
  const raw = request.raw;
  const socket = raw.socket;
  // An in-process request (inject) holds no connection.
  if (!(socket instanceof Socket)) return;
  const timer = setTimeout(() => {
    if (raw.complete || socket.destroyed) return;
    request.log.debug({ traceId: request.id, timeoutMs }, 'unauthenticated request body too slow; socket closed');
    if (!reply.raw.headersSent) socket.write(REQUEST_TIMEOUT_REPLY);
    socket.destroy();
  }, timeoutMs);
  timer.unref();
  // A keep-alive socket carries many requests: each one's listeners go with it.
  const disarm = (): void => {
    clearTimeout(timer);
    raw.off('end', disarm);
    socket.off('close', disarm);
  };
  raw.once('end', disarm);
  socket.once('close', disarm);
}

/**
 * Adds the guard as the first onRequest hook, so a refused request costs no rate-limit count and no body read.
 * A request with no body on an uncrowded server passes without an await (the common case, /health included).
 */
export function guardConnections(
  app: FastifyInstance,
  limitsNow: () => ConnectionGuardLimits,
  auth: RequestAuth,
): void {
  const sockets = countSockets(app);
  /** Read per request, so a changed limit applies to the next request. */
  const freeSlots = (limits: ConnectionGuardLimits): number => {
    const reserved = limits.reservedConnections ?? Math.floor(limits.maxConnections * DEFAULT_RESERVED_SHARE);
    return Math.max(0, limits.maxConnections - reserved);
  };

  async function vet(
    request: FastifyRequest,
    reply: FastifyReply,
    isCrowded: boolean,
    limits: ConnectionGuardLimits,
  ): Promise<void> {
    const isProbe = PROBE_PATHS.has(request.url.split('?', 1)[0] ?? '');
    if (isProbe && !hasBody(request)) return;
    // Any token the routes accept counts: a bearer header, or ?token= on an SSE route.
    if ((await auth.identify(request, true)) !== undefined) return;
    if (isCrowded && !isProbe) {
      reply.header('connection', 'close');
      throw connectionsCrowded();
    }
    armBodyDeadline(request, reply, limits.unauthenticatedBodyTimeoutMs);
  }

  app.addHook('onRequest', function guardConnection(request, reply, done) {
    const limits = limitsNow();
    const isCrowded =
      sockets.open() > freeSlots(limits) ||
      sockets.fromAddress(request.socket.remoteAddress ?? '') > limits.maxConnectionsPerAddress;
    if (!isCrowded && !hasBody(request)) {
      done();
      return;
    }
    vet(request, reply, isCrowded, limits).then(() => done(), done);
  });
}
