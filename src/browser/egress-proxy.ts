// The browser's only way out: a loopback HTTP/CONNECT proxy Chromium is launched with (loopback not bypassed). Every
// connection a page makes (navigations, each redirect hop, subresources, fetch, WebSockets, which Chromium tunnels
// with CONNECT) arrives here before it leaves; its host is resolved once, every address checked, and the connection
// made to a checked address, so a name cannot resolve to something else between the check and the connect.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { hostAddress, resolveHost, type EgressNetwork } from './network-guard.js';

/** A connection attempt to one address gives up after this long and the next address is tried. */
export const EGRESS_CONNECT_TIMEOUT_MS = 10_000;

/** Connection-level headers: they describe the hop to the proxy, not the request to the site. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export interface EgressProxyDeps {
  /** Read per connection, so a config change applies to the running browser at once. */
  allowPrivateNetwork: () => boolean;
  network: EgressNetwork;
  log: Logger;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`, for Chromium's --proxy-server. */
  url: string;
  /**
   * Random per start, for Chromium's proxy login: any process on the machine can reach a loopback port, and without
   * them it could use the proxy (and, with allowPrivateNetwork, the private network behind it).
   */
  username: string;
  password: string;
  close(): Promise<void>;
}

interface Target {
  host: string;
  port: number;
}

/** `host:port` or `[v6]:port`, as a CONNECT request names its target. */
function parseAuthority(authority: string): Target | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  return host === undefined || !Number.isInteger(port) || port < 1 || port > 65_535 ? undefined : { host, port };
}

/** The raw header list without connection-level headers, nor those the Connection header names. */
function endToEnd(rawHeaders: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'connection')
      for (const name of (rawHeaders[i + 1] ?? '').split(',')) named.add(name.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const lower = name.toLowerCase();
    if (!HOP_BY_HOP.has(lower) && !named.has(lower)) kept.push(name, rawHeaders[i + 1] ?? '');
  }
  return kept;
}

/** Resolves once `socket` is connected; destroys it when it fails or does not connect in time. */
async function connectOnce(socket: Socket): Promise<Socket> {
  let timer: NodeJS.Timeout | undefined;
  let onConnect: (() => void) | undefined;
  let onError: ((error: Error) => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onConnect = resolve;
      onError = reject;
      timer = setTimeout(() => reject(new Error('connect timed out')), EGRESS_CONNECT_TIMEOUT_MS);
      timer.unref();
      socket.once('connect', onConnect);
      socket.once('error', onError);
    });
    return socket;
  } catch (error) {
    socket.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
    if (onConnect !== undefined) socket.off('connect', onConnect);
    if (onError !== undefined) socket.off('error', onError);
  }
}

/** The Basic credentials a request must carry, compared in constant time. */
function credentialCheck(username: string, password: string): (request: IncomingMessage) => boolean {
  const expected = Buffer.from(`Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`);
  return (request) => {
    const given = Buffer.from(request.headers['proxy-authorization'] ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}

const LOGIN_REQUIRED =
  'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="agent-gateway"\r\nContent-Length: 0\r\n\r\n';

export async function startEgressProxy(deps: EgressProxyDeps): Promise<EgressProxy> {
  const { network, log } = deps;
  const username = randomBytes(9).toString('base64url');
  const password = randomBytes(18).toString('base64url');
  const isAuthorized = credentialCheck(username, password);
  const open = new Set<Duplex>();
  const track = <S extends Duplex>(socket: S): S => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    return socket;
  };

  /** Resolves and checks the target, then connects to the first of its checked addresses that answers. */
  async function dial({ host, port }: Target): Promise<Socket | 'refused' | 'unreachable'> {
    const verdict = await resolveHost(hostAddress(host), deps.allowPrivateNetwork(), network);
    if (!verdict.allowed) {
      log.info({ host, reason: verdict.reason }, 'blocked a browser connection to a private address');
      return 'refused';
    }
    for (const address of verdict.addresses) {
      try {
        const socket = await connectOnce(network.connect(address, port));
        socket.on('error', () => socket.destroy());
        return track(socket);
      } catch {
        // The next address, if any.
      }
    }
    return 'unreachable';
  }

  async function forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!isAuthorized(request)) {
      response.writeHead(407, { 'proxy-authenticate': 'Basic realm="agent-gateway"', 'content-length': '0' }).end();
      return;
    }
    let url: URL | undefined;
    try {
      url = new URL(request.url ?? '');
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'http:') {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('Only absolute http URLs are proxied');
      return;
    }
    const upstream = await dial({ host: url.hostname, port: Number(url.port || 80) });
    if (upstream === 'refused') {
      // A proxy's answer to a plain-http request would pass for the site's own; a closed connection is a network
      // error to the page, as a refused CONNECT is.
      request.socket.destroy();
      return;
    }
    if (upstream === 'unreachable') {
      response.writeHead(502, { 'content-type': 'text/plain' }).end('Could not connect');
      return;
    }
    if (request.socket.destroyed) {
      upstream.destroy();
      return;
    }
    response.once('close', () => upstream.destroy());
    const outgoing = httpRequest({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: endToEnd(request.rawHeaders),
      createConnection: () => upstream,
    });
    outgoing.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      answer.pipe(response);
    });
    outgoing.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.destroy();
    });
    request.pipe(outgoing);
  }

  async function tunnel(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    if (!isAuthorized(request)) {
      client.end(LOGIN_REQUIRED);
      return;
    }
    const target = parseAuthority(request.url ?? '');
    if (target === undefined) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const upstream = await dial(target);
    if (typeof upstream === 'string') {
      client.end(upstream === 'refused' ? 'HTTP/1.1 403 Forbidden\r\n\r\n' : 'HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
  }

  const server = createServer((request, response) => void forward(request, response));
  server.on('connection', track);
  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    void tunnel(request, client, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const bound = server.address();
  return {
    url: `http://127.0.0.1:${typeof bound === 'object' && bound !== null ? bound.port : 0}`,
    username,
    password,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
