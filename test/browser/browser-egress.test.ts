// The private-address guard with a real headless Chromium: a page served from a public-looking name (a resolver hook
// maps it to the local page server) cannot reach loopback through a WebSocket, a fetch through a redirect, or a
// navigation redirect; the loopback sink sees no connection at all, not only a failing page.
import { randomUUID } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect as netConnect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserModule, type BrowserModule, type EgressNetwork } from '../../src/browser/index.js';
import { validateConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/index.js';
import { createDispatcher, createRegistry, type JsonRpcResponse } from '../../src/rpc/index.js';
import { startPageServer, startSink, type PageServer, type Sink } from './browser-support.js';

/** The address the hook resolves `pages.example` to; connections to it go to the local page server. */
const PUBLIC = '93.184.216.34';
const SITE = 'http://pages.example';

let pages: PageServer;
let sink: Sink;
let module: BrowserModule;
const dialled: string[] = [];
const log = createLogger({ level: 'silent' });

const network: EgressNetwork = {
  lookup: async (host) => {
    if (host === 'pages.example') return [PUBLIC];
    if (host === 'loopback.example') return ['127.0.0.1'];
    throw new Error(`ENOTFOUND ${host}`);
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
  const { browser } = validateConfig({ browser: { idleMs: 0 } }, 'browser egress test');
  module = createBrowserModule({ config: () => browser, network, now: Date.now, newId: randomUUID, log });
});
afterAll(async () => {
  await module?.stop?.();
  await sink?.close();
  await pages?.close();
});

async function dispatch(method: string, params?: unknown): Promise<JsonRpcResponse> {
  const dispatcher = createDispatcher({ registry: createRegistry(module.methods ?? []), maxBatchSize: 10 });
  return (await dispatcher.dispatch(
    { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) },
    { caller: { clientId: 'tester', scopes: ['rpc'] }, transport: 'http', log, signal: new AbortController().signal },
  )) as JsonRpcResponse;
}

async function call(method: string, params?: unknown): Promise<Record<string, unknown>> {
  const response = await dispatch(method, params);
  expect(response).not.toHaveProperty('error');
  return (response as { result: Record<string, unknown> }).result;
}

/** Loads the probe page from the public-looking site, clicks `button` and answers what the page said came of it. */
async function probe(query: string, button: '#ws' | '#fetch' | '#rtc'): Promise<string> {
  expect(await call('browser.navigate', { url: `${SITE}/probe?${query}` })).toMatchObject({
    title: 'Probe',
    status: 200,
  });
  await call('browser.act', { action: 'click', selector: button });
  await call('browser.act', { action: 'wait', text: 'done:' });
  return /done: ([^"\n]*)/.exec(String((await call('browser.snapshot')).snapshot))?.[1] ?? '';
}

describe('browser egress guard', () => {
  it('browses a public name through the proxy, connecting to the address it checked', async () => {
    expect(await call('browser.navigate', { url: `${SITE}/` })).toMatchObject({
      url: `${SITE}/`,
      title: 'Home',
      status: 200,
    });
    expect(dialled).toContain(`${PUBLIC}:80`);
    expect(dialled.every((entry) => entry.startsWith(`${PUBLIC}:`))).toBe(true);
  });

  it("stops a page's WebSocket to loopback before it connects", async () => {
    expect(await probe(`ws=${encodeURIComponent(`ws://127.0.0.1:${sink.port}/socket`)}`, '#ws')).toBe('ws failed');
    expect(sink.connections()).toBe(0);
  });

  it("stops a page's WebSocket to a name that resolves to loopback", async () => {
    expect(await probe(`ws=${encodeURIComponent(`ws://loopback.example:${sink.port}/socket`)}`, '#ws')).toBe(
      'ws failed',
    );
    expect(sink.connections()).toBe(0);
  });

  it('stops a fetch of an allowed URL at its redirect to loopback, before that hop is requested', async () => {
    const bounce = `/bounce?to=${encodeURIComponent(`${sink.origin}/secret`)}`;
    expect(await probe(`fetch=${encodeURIComponent(bounce)}`, '#fetch')).toBe('fetch failed');
    expect(sink.connections()).toBe(0);
  });

  it('refuses a navigation that redirects to loopback without requesting the loopback page', async () => {
    const response = await dispatch('browser.navigate', {
      url: `${SITE}/bounce?to=${encodeURIComponent(`${sink.origin}/admin`)}`,
    });
    expect(response).toMatchObject({ error: { code: -32603, data: { kind: 'forbidden', param: 'url' } } });
    expect(JSON.stringify(response)).toContain('redirected');
    expect(sink.connections()).toBe(0);
    expect(await call('browser.status')).toMatchObject({ url: 'about:blank' });
  });

  it('refuses a name that resolves to loopback, and a subresource on loopback', async () => {
    const refused = await dispatch('browser.navigate', { url: `http://loopback.example:${sink.port}/` });
    expect(refused).toMatchObject({ error: { code: -32603, data: { kind: 'forbidden', param: 'url' } } });
    expect(await probe(`fetch=${encodeURIComponent(`http://loopback.example:${sink.port}/data`)}`, '#fetch')).toBe(
      'fetch failed',
    );
    expect(await probe(`fetch=${encodeURIComponent(`http://[::ffff:127.0.0.1]:${sink.port}/data`)}`, '#fetch')).toBe(
      'fetch failed',
    );
    expect(sink.connections()).toBe(0);
  });

  it('lets WebRTC send no UDP, so STUN cannot reach loopback around the proxy', async () => {
    const udp: UdpSocket = createSocket('udp4');
    let packets = 0;
    udp.on('message', () => {
      packets += 1;
    });
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    try {
      expect(await probe(`stun=${encodeURIComponent(`stun:127.0.0.1:${udp.address().port}`)}`, '#rtc')).toBe(
        'rtc gathered',
      );
      expect(packets).toBe(0);
    } finally {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    }
  });
});
