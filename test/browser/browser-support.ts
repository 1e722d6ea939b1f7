// Helpers for the browser tests: pages served on localhost, a sink that counts whatever reaches it, the PNG header
// reader, and the Chromium process finder.
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callRpc } from '../support/http-client.js';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

/** The pages the tests browse, by path; `cookie` is the Cookie header the request came with. */
const PAGES: Record<string, (query: URLSearchParams, cookie: string | undefined) => string> = {
  '/': () =>
    page(
      'Home',
      `<h1>Welcome</h1><button onclick="document.getElementById('out').textContent = 'Button was clicked'">Press me</button>` +
        `<p id="out">Not clicked yet</p>` +
        `<button id="fetch" onclick="fetch('/ping?at=' + Date.now()).then(r => r.text()).then(t => { document.getElementById('out').textContent = 'fetched ' + t; }, () => { document.getElementById('out').textContent = 'fetch blocked'; })">Fetch</button>` +
        `<script>console.log('hello from the page'); console.warn('careful'); setTimeout(() => { throw new Error('late failure'); }, 0);</script>`,
    ),
  '/form': () =>
    page(
      'Form',
      `<form action="/submitted" method="get"><label>Name <input name="name"></label>` +
        `<select name="colour" aria-label="Colour"><option value="red">Red</option><option value="blue">Blue</option></select>` +
        `<button type="submit">Send</button></form>`,
    ),
  '/submitted': (query) =>
    page(
      'Submitted',
      `<p>Hello, ${escapeHtml(query.get('name') ?? '')} in ${escapeHtml(query.get('colour') ?? '')}</p>`,
    ),
  '/tall': () => page('Tall', '<div style="height: 3000px; background: linear-gradient(red, blue)">tall</div>'),
  '/cookies': (_query, cookie) => page(`Cookies: ${escapeHtml(cookie ?? 'none')}`, '<p>cookies</p>'),
  // Opens the WebSocket in ?ws=, fetches ?fetch= or gathers ICE candidates from ?stun= on a click, and says how it
  // went after `done:`.
  '/probe': () =>
    page(
      'Probe',
      `<p id="out">idle</p><button id="ws" onclick="probeWs()">WebSocket</button><button id="fetch" onclick="probeFetch()">Fetch</button>` +
        `<button id="rtc" onclick="probeRtc()">WebRTC</button>` +
        `<script>const params = new URLSearchParams(location.search); const say = (text) => { document.getElementById('out').textContent = 'done: ' + text; };` +
        `function probeWs() { const ws = new WebSocket(params.get('ws')); ws.onopen = () => say('ws opened'); ws.onerror = () => say('ws failed'); }` +
        `function probeFetch() { fetch(params.get('fetch')).then((r) => r.text()).then((t) => say('fetched ' + t), () => say('fetch failed')); }` +
        // ICE gathering against the STUN server in ?stun=; it completes once every candidate is found or given up.
        `async function probeRtc() { const pc = new RTCPeerConnection({ iceServers: [{ urls: params.get('stun') }] }); pc.createDataChannel('probe');` +
        ` pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') say('rtc gathered'); };` +
        ` await pc.setLocalDescription(await pc.createOffer()); }</script>`,
    ),
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface PageServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('pong');
      return;
    }
    // Never answers: for the browser's call timeout.
    if (url.pathname === '/hang') return;
    if (url.pathname === '/redirect') {
      response.writeHead(302, { location: '/form' }).end();
      return;
    }
    // A redirect to anywhere: /bounce?to=<url>.
    if (url.pathname === '/bounce') {
      response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      return;
    }
    if (url.pathname === '/set-cookie') {
      const value = url.searchParams.get('value') ?? '';
      response
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'set-cookie': `owner=${encodeURIComponent(value)}; Path=/`,
        })
        .end(page('Cookie set', value));
      return;
    }
    const render = PAGES[url.pathname];
    if (render === undefined) {
      response.writeHead(404).end('not found');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(render(url.searchParams, request.headers.cookie));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Sink {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** TCP connections that reached it: anything at all the browser sent its way. */
  connections(): number;
  close(): Promise<void>;
}

/** A loopback HTTP server the browser must never reach when private addresses are refused; it counts connections. */
export async function startSink(): Promise<Sink> {
  let connections = 0;
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('sink reached');
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Width and height from a PNG's IHDR chunk (bytes 16-23), after checking the 8-byte signature. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!bytes.subarray(0, 8).equals(signature) || bytes.toString('latin1', 12, 16) !== 'IHDR')
    throw new Error('not a PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Pids of the Chromium processes this test process started itself (its direct children). */
export async function chromiumChildren(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const nameEnd = stat.lastIndexOf(')');
    if (nameEnd < 0) continue;
    const name = stat.slice(stat.indexOf('(') + 1, nameEnd);
    const parentPid = Number(stat.slice(nameEnd + 2).split(' ')[1]);
    if (parentPid === process.pid && name.startsWith('chrom')) pids.push(Number(entry));
  }
  return pids;
}

export interface RpcReply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { kind?: string; param?: string } };
}

export async function rpc(url: string, token: string, method: string, params?: unknown): Promise<RpcReply> {
  return (await callRpc(url, token, method, params)) as RpcReply;
}

/** The ref the snapshot gives the first element whose line matches `line` (e.g. `button "Press me"`). */
export function refOf(snapshot: string, line: string): string {
  const match = new RegExp(`${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\\n]*\\[ref=([A-Za-z0-9]+)\\]`).exec(
    snapshot,
  );
  if (match?.[1] === undefined) throw new Error(`no ref for ${line} in:\n${snapshot}`);
  return match[1];
}
