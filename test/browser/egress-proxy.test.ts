// The browser's egress proxy on its own, driven over real sockets: it resolves a host once, refuses it when any
// address is private, and connects to the very address it checked, for proxied requests and CONNECT tunnels alike.
import { request, type IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from '../../src/browser/egress-proxy.js';
import type { EgressNetwork } from '../../src/browser/index.js';
import { createLogger } from '../../src/obs/index.js';
import { startPageServer, startSink, type PageServer, type Sink } from './browser-support.js';

/** A public address the fake resolver hands out; connections to it go to the local page server. */
const PUBLIC = '93.184.216.34';

let pages: PageServer;
let sink: Sink;
let proxy: EgressProxy;
let allowPrivateNetwork = false;
const lookups: string[] = [];
const dialled: string[] = [];
/** name → the answers of its successive lookups (the last one repeats). */
const names = new Map<string, string[][]>();

const network: EgressNetwork = {
  async lookup(host) {
    lookups.push(host);
    const answers = names.get(host);
    if (answers === undefined) throw new Error(`ENOTFOUND ${host}`);
    return (answers.length > 1 ? answers.shift() : answers[0]) ?? [];
  },
  connect(address, port): Socket {
    dialled.push(`${address}:${port}`);
    return address === PUBLIC
      ? netConnect({ host: '127.0.0.1', port: pages.port })
      : netConnect({ host: address, port });
  },
};

beforeAll(async () => {
  pages = await startPageServer();
  sink = await startSink();
  proxy = await startEgressProxy({
    allowPrivateNetwork: () => allowPrivateNetwork,
    network,
    log: createLogger({ level: 'silent' }),
  });
});
afterAll(async () => {
  await proxy?.close();
  await sink?.close();
  await pages?.close();
});

const proxyPort = () => Number(new URL(proxy.url).port);
/** The proxy's login, as Chromium sends it; `omitLogin` sends none. */
const login = (omitLogin = false) =>
  omitLogin
    ? {}
    : { 'proxy-authorization': `Basic ${Buffer.from(`${proxy.username}:${proxy.password}`).toString('base64')}` };

function reset(): void {
  lookups.length = 0;
  dialled.length = 0;
  names.clear();
}

/** A plain-http request sent to the proxy in absolute form, as Chromium sends it; `closed`: no answer at all. */
async function proxied(url: string, omitLogin = false): Promise<{ status: number; body: string } | 'closed'> {
  const host = URL.canParse(url) ? new URL(url).host : 'localhost';
  const answer = await new Promise<IncomingMessage | 'closed'>((resolve, reject) => {
    request({ host: '127.0.0.1', port: proxyPort(), path: url, headers: { host, ...login(omitLogin) } }, resolve)
      .on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve('closed') : reject(error)))
      .end();
  });
  if (answer === 'closed') return answer;
  let body = '';
  for await (const chunk of answer) body += String(chunk);
  return { status: answer.statusCode ?? 0, body };
}

/** A CONNECT tunnel to `authority`; on 200, a GET sent through it, and its answer. */
async function tunnelled(authority: string, omitLogin = false): Promise<{ status: number; body: string }> {
  const { statusCode, socket } = await new Promise<{ statusCode: number; socket: Socket }>((resolve, reject) => {
    request({ host: '127.0.0.1', port: proxyPort(), method: 'CONNECT', path: authority, headers: login(omitLogin) })
      .on('connect', (answer: IncomingMessage, socket: Socket) =>
        resolve({ statusCode: answer.statusCode ?? 0, socket }),
      )
      .on('error', reject)
      .end();
  });
  if (statusCode !== 200) {
    socket.destroy();
    return { status: statusCode, body: '' };
  }
  // HTTP/1.0: the answer comes unchunked, and the connection closes after it.
  socket.end(`GET /ping HTTP/1.0\r\nHost: ${authority}\r\n\r\n`);
  let raw = '';
  for await (const chunk of socket) raw += String(chunk);
  return { status: statusCode, body: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
}

describe('egress proxy', () => {
  it('connects an allowed name to the address it checked, resolving it once', async () => {
    reset();
    // A rebinding name: public at the check, loopback at any later lookup.
    names.set('flip.example', [[PUBLIC], ['127.0.0.1']]);
    expect(await proxied('http://flip.example/ping')).toEqual({ status: 200, body: 'pong' });
    expect(lookups).toEqual(['flip.example']);
    expect(dialled).toEqual([`${PUBLIC}:80`]);

    names.set('tunnel.example', [[PUBLIC], ['127.0.0.1']]);
    expect(await tunnelled(`tunnel.example:${sink.port}`)).toEqual({ status: 200, body: 'pong' });
    expect(dialled).toEqual([`${PUBLIC}:80`, `${PUBLIC}:${sink.port}`]);
    expect(sink.connections()).toBe(0);
  });

  it.each([
    ['a name that resolves to loopback', () => `http://loop.example:${sink.port}/`, [['127.0.0.1']]],
    [
      'a name with one public and one loopback address',
      () => `http://mixed.example:${sink.port}/`,
      [[PUBLIC, '127.0.0.1']],
    ],
    ['a name that resolves to mapped loopback', () => `http://mapped.example:${sink.port}/`, [['::ffff:127.0.0.1']]],
    ['the loopback address', () => `${sink.origin}/`, []],
    ['a NAT64 form of loopback', () => `http://[64:ff9b::7f00:1]:${sink.port}/`, []],
  ])(
    'refuses %s before connecting anywhere: a proxied request gets its connection closed, a tunnel 403',
    async (_name, url, answers) => {
      reset();
      const { hostname, host } = new URL(url());
      if (answers.length > 0)
        names.set(
          hostname,
          answers.map((list) => [...list]),
        );
      expect(await proxied(url())).toBe('closed');
      expect((await tunnelled(host)).status).toBe(403);
      expect(dialled).toEqual([]);
      expect(sink.connections()).toBe(0);
    },
  );

  it('answers 407 to a request without its login (another local process), before resolving or connecting', async () => {
    reset();
    names.set('open.example', [[PUBLIC]]);
    expect(await proxied('http://open.example/ping', true)).toMatchObject({ status: 407 });
    expect((await tunnelled(`open.example:${sink.port}`, true)).status).toBe(407);
    expect(lookups).toEqual([]);
    expect(dialled).toEqual([]);
    expect(sink.connections()).toBe(0);
  });

  it('refuses a name that does not resolve, and a request that is not in absolute form', async () => {
    reset();
    expect(await proxied('http://nowhere.example/')).toBe('closed');
    expect((await tunnelled('nowhere.example:443')).status).toBe(403);
    expect(await proxied('/relative')).toMatchObject({ status: 400 });
    expect(dialled).toEqual([]);
  });

  it('lets private addresses through while browser.allowPrivateNetwork is set, read per connection', async () => {
    reset();
    allowPrivateNetwork = true;
    try {
      expect(await proxied(`${sink.origin}/`)).toEqual({ status: 200, body: 'sink reached' });
      expect(sink.connections()).toBe(1);
    } finally {
      allowPrivateNetwork = false;
    }
    expect(await proxied(`${sink.origin}/`)).toBe('closed');
    expect(sink.connections()).toBe(1);
  });
});
