// Connection limits (DESIGN §3 "connections"): gateway.maxConnections and gateway.headersTimeoutMs against
// a thousand raw idle sockets, and a WebSocket upgrade that never completes its closing handshake.
import { get } from 'node:http';
import { connect as connectTcp, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';

const IDLE_SOCKETS = 1_000;
/** vi.waitFor waits for an event here, never measures speed: a generous ceiling keeps slow machines green. */
const WAIT = { timeout: 15_000, interval: 25 };

interface RawSocket {
  socket: Socket;
  /** Whether the server ended or reset the connection. */
  isClosed(): boolean;
  /** Everything the server sent. */
  received(): string;
}

/** `firstWrite` is sent as soon as the socket connects. */
function openRaw(url: string, firstWrite = ''): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let isClosed = false;
    let received = '';
    const socket = connectTcp({ host: hostname, port: Number(port) });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    // A socket refused at once may be reset before or after it connected; either way it counts as closed.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      isClosed = true;
    });
    socket.once('connect', () => {
      if (firstWrite !== '') socket.write(firstWrite);
      resolve({ socket, isClosed: () => isClosed, received: () => received });
    });
    socket.once('error', (error) =>
      isClosed ? resolve({ socket, isClosed: () => true, received: () => received }) : reject(error),
    );
  });
}

async function openMany(
  url: string,
  count: number,
  firstWriteOf: (index: number) => string = () => '',
): Promise<RawSocket[]> {
  const sockets: RawSocket[] = [];
  // In batches, so the test does not depend on the listen backlog.
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, (_unused, offset) =>
      openRaw(url, firstWriteOf(start + offset)),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

/** GET /health on a fresh connection (fetch would retry a refused socket; this reports it). */
function health(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(`${url}/health`, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

describe('connection limits', () => {
  let gateway: Harness | undefined;
  let sockets: RawSocket[] = [];
  afterEach(async () => {
    for (const raw of sockets) raw.socket.destroy();
    sockets = [];
    await gateway?.close();
    gateway = undefined;
  });

  it('closes sockets beyond gateway.maxConnections as they arrive, and answers again once some are released', async () => {
    // A head timeout far beyond the test, so every close seen here is the cap's doing.
    gateway = await startGateway({ gateway: { maxConnections: 200, headersTimeoutMs: 600_000 } });
    sockets = await openMany(gateway.url, IDLE_SOCKETS);
    await vi.waitFor(() => expect(sockets.filter((raw) => raw.isClosed())).toHaveLength(IDLE_SOCKETS - 200), WAIT);
    // The cap is full of idle sockets: a new client is turned away rather than queued behind them.
    await expect(health(gateway.url)).rejects.toThrow();

    const held = sockets.filter((raw) => !raw.isClosed());
    expect(held).toHaveLength(200);
    for (const raw of held.slice(0, 10)) raw.socket.destroy();
    await vi.waitFor(async () => expect(await health(gateway?.url ?? '')).toBe(200), WAIT);
  });

  it('closes sockets that send no complete request head within gateway.headersTimeoutMs, and /health answers meanwhile', async () => {
    gateway = await startGateway({ gateway: { maxConnections: 5_000, headersTimeoutMs: 500 } });
    const { url } = gateway;
    // Three kinds of idle: silent, a head that never ends (slow loris), and keep-alive after one request.
    sockets = await openMany(url, IDLE_SOCKETS, (index) => {
      if (index % 10 === 1) return 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ';
      if (index % 10 === 2) return 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';
      return '';
    });

    for (let i = 0; i < 5; i += 1) expect(await health(url)).toBe(200);
    await vi.waitFor(() => expect(sockets.filter((raw) => !raw.isClosed())).toHaveLength(0), WAIT);
    expect(
      sockets.filter((_raw, index) => index % 10 === 2).every((raw) => raw.received().startsWith('HTTP/1.1 200')),
    ).toBe(true);
    expect(await health(url)).toBe(200);
  });

  it('closes a request whose body does not arrive within gateway.requestTimeoutMs', async () => {
    gateway = await startGateway({ gateway: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } });
    // A complete head, then a body that stops after 2 of its 100 bytes.
    const head = `POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.rpc}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const raw = await openRaw(gateway.url, `${head}{"`);
    sockets = [raw];
    await vi.waitFor(() => expect(raw.isClosed()).toBe(true), WAIT);
    expect(raw.received()).toMatch(/^(HTTP\/1\.1 408|$)/);
    expect(await health(gateway.url)).toBe(200);
  });

  it('destroys an unauthenticated WebSocket whose client never answers the 4001 close frame', async () => {
    gateway = await startGateway({ gateway: { headersTimeoutMs: 500 } });
    const raw = await openRaw(gateway.url);
    sockets = [raw];
    raw.socket.write(
      'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await vi.waitFor(() => expect(raw.received()).toContain('HTTP/1.1 101'), WAIT);
    // The close frame carries 4001; this client never sends its own close frame back.
    await vi.waitFor(() => expect(raw.received()).toContain('Unauthorized'), WAIT);
    await vi.waitFor(() => expect(raw.isClosed()).toBe(true), WAIT);
  });
});
