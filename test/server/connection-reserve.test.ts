// Issue 30, item 5: unauthenticated clients cannot hold every connection slot. A request without a valid token must
// send its body within gateway.unauthenticatedBodyTimeoutMs; beyond maxConnections − reservedConnections open
// sockets, or maxConnectionsPerAddress from one address, only /health, /ready and requests with a valid token are
// served. Real sockets throughout; every wait is for an event (a close, an answer), never a measured time.
import { request as httpRequest } from 'node:http';
import { connect as connectTcp, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';

const WEBHOOK_SECRET = 'webhook-secret-0123456789';
/** vi.waitFor waits for an event here, never measures speed: a generous ceiling keeps slow machines green. */
const WAIT = { timeout: 20_000, interval: 25 };

interface RawSocket {
  socket: Socket;
  closed: Promise<void>;
  isClosed(): boolean;
  received(): string;
}

/** A webhook head announcing 1000 body bytes, and one of them: the sender then stalls. */
const STALLED_WEBHOOK =
  'POST /hooks/webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Webhook-Signature: sha256=00\r\nContent-Length: 1000\r\n\r\n{';

function openRaw(url: string, firstWrite: string, localAddress?: string): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let isClosed = false;
    let received = '';
    const socket = connectTcp({
      host: hostname,
      port: Number(port),
      ...(localAddress === undefined ? {} : { localAddress }),
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolveClosed) => {
      socket.once('close', () => {
        isClosed = true;
        resolveClosed();
      });
    });
    const raw = { socket, closed, isClosed: () => isClosed, received: () => received };
    socket.once('connect', () => {
      socket.write(firstWrite);
      resolve(raw);
    });
    // A socket the server refuses at once may be reset before it connected; it counts as closed.
    socket.once('error', (error) => (isClosed ? resolve(raw) : reject(error)));
  });
}

async function openMany(
  url: string,
  count: number,
  firstWrite: string,
  localAddressOf?: (index: number) => string,
): Promise<RawSocket[]> {
  const sockets: RawSocket[] = [];
  for (let start = 0; start < count; start += 50) {
    const batch = Array.from({ length: Math.min(50, count - start) }, (_unused, offset) =>
      openRaw(url, firstWrite, localAddressOf?.(start + offset)),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

/** One request on a fresh connection (fetch would retry a refused socket; this reports it). */
function send(
  url: string,
  path: string,
  { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { method, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping' });
const authedPing = (url: string) =>
  send(url, '/rpc', {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.rpc}`, 'content-type': 'application/json' },
    body: ping,
  });

function openConnections(gateway: Harness): Promise<number> {
  return new Promise((resolve, reject) =>
    gateway.app.http.server.getConnections((error, count) => (error === null ? resolve(count) : reject(error))),
  );
}

describe('connection reserve and unauthenticated body deadline', () => {
  let gateway: Harness | undefined;
  let sockets: RawSocket[] = [];
  afterEach(async () => {
    for (const raw of sockets) raw.socket.destroy();
    sockets = [];
    await gateway?.close();
    gateway = undefined;
  });

  it('serves /health and an authenticated /rpc call while one address stalls webhook bodies on every slot, and closes the stalled sockets at the body deadline', async () => {
    gateway = await startGateway({
      gateway: {
        // Far above the test's requests, so every refusal seen here is the connection guard's.
        rateLimit: { maxRequests: 100_000, windowMs: 60_000 },
        maxConnections: 300,
        reservedConnections: 50,
        maxConnectionsPerAddress: 100,
        unauthenticatedBodyTimeoutMs: 1_500,
        webhook: { secret: WEBHOOK_SECRET },
      },
    });
    const { url } = gateway;
    sockets = await openMany(url, 400, STALLED_WEBHOOK);

    const health = await send(url, '/health');
    expect(health.status).toBe(200);
    const rpc = await authedPing(url);
    expect(rpc.status).toBe(200);
    expect(JSON.parse(rpc.text)).toMatchObject({ result: { pong: true } });

    // Every stalled socket is closed: at once (503 beyond this address's share) or at the body deadline (408).
    await Promise.all(sockets.map((raw) => raw.closed));
    for (const raw of sockets) expect(raw.received()).toMatch(/^(HTTP\/1\.1 (408|503) |$)/);
    expect(sockets.some((raw) => raw.received().startsWith('HTTP/1.1 503 '))).toBe(true);
    expect((await send(url, '/health')).status).toBe(200);
  });

  it('keeps reservedConnections for /health, /ready and valid tokens when many addresses fill the rest', async () => {
    gateway = await startGateway({
      gateway: {
        rateLimit: { maxRequests: 100_000, windowMs: 60_000 },
        maxConnections: 120,
        reservedConnections: 20,
        maxConnectionsPerAddress: 1_000,
        unauthenticatedBodyTimeoutMs: 600_000,
        requestTimeoutMs: 600_000,
        webhook: { secret: WEBHOOK_SECRET },
      },
    });
    const { url } = gateway;
    const held = gateway;
    // 100 stalled bodies from four addresses: every slot outside the reserve.
    sockets = await openMany(url, 100, STALLED_WEBHOOK, (index) => `127.0.0.${2 + (index % 4)}`);
    await vi.waitFor(async () => expect(await openConnections(held)).toBe(100), WAIT);

    // Outside the reserve's rules: refused with 503 and a retry hint, its socket closed.
    const unsigned = await send(url, '/hooks/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"event":"x"}',
    });
    expect(unsigned.status).toBe(503);
    expect(Number(unsigned.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(unsigned.text)).toMatchObject({ error: { code: 'unavailable' } });
    const late = await openRaw(url, STALLED_WEBHOOK, '127.0.0.9');
    sockets.push(late);
    await late.closed;
    expect(late.received()).toMatch(/^HTTP\/1\.1 503 /);

    // Inside them: answered as usual.
    expect((await send(url, '/health')).status).toBe(200);
    expect((await send(url, '/ready')).status).toBe(200);
    const rpc = await authedPing(url);
    expect(rpc.status).toBe(200);
    expect(JSON.parse(rpc.text)).toMatchObject({ result: { pong: true } });
    // The stalled sockets are still held: nothing above closed them early.
    expect(sockets.slice(0, 100).every((raw) => !raw.isClosed())).toBe(true);
  });

  it('closes a refused request whose body never finishes at the body deadline, not at requestTimeoutMs', async () => {
    gateway = await startGateway({
      gateway: { unauthenticatedBodyTimeoutMs: 500, requestTimeoutMs: 600_000, headersTimeoutMs: 600_000 },
    });
    // No token: /rpc answers 401 without reading the body, and the rest of it would otherwise be awaited for 10 minutes.
    const raw = await openRaw(
      gateway.url,
      'POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"',
    );
    sockets = [raw];
    await raw.closed;
    expect(raw.received()).toMatch(/^HTTP\/1\.1 (401|408) /);
  });

  it('gives an authenticated request the whole requestTimeoutMs for its body', async () => {
    gateway = await startGateway({
      gateway: { unauthenticatedBodyTimeoutMs: 200, requestTimeoutMs: 600_000, headersTimeoutMs: 600_000 },
    });
    const { url } = gateway;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'system.ping' });
    const raw = await openRaw(
      url,
      `POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.rpc}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    sockets = [raw];
    // An unauthenticated body sent alongside is cut at its deadline; the authenticated one is still open then.
    const other = await openRaw(
      url,
      'POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"',
    );
    sockets.push(other);
    await other.closed;
    expect(raw.isClosed()).toBe(false);
    raw.socket.write(body.slice(5));
    await vi.waitFor(() => expect(raw.received()).toContain('"pong":true'), WAIT);
  });
});
