// What the browser refuses without starting Chromium: private and non-http URLs, and every call when Chromium is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/browser/index.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { rpc, startPageServer, type PageServer } from './browser-support.js';

let pages: PageServer;
let guarded: Harness;
let missing: Harness;
beforeAll(async () => {
  pages = await startPageServer();
  guarded = await startGateway();
  missing = await startGateway({ browser: { executablePath: '/nonexistent/chromium' } });
});
afterAll(async () => {
  await guarded?.close();
  await missing?.close();
  await pages?.close();
});

describe('browser URL checks', () => {
  it.each([
    ['the loopback address', () => `${pages.origin}/`],
    ['a name that resolves to loopback', () => `http://localhost:${pages.port}/`],
    ['IPv6 loopback', () => `http://[::1]:${pages.port}/`],
    ['a link-local metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private network address', () => 'http://10.1.2.3/'],
    ['a mapped IPv4 private address', () => 'http://[::ffff:192.168.1.1]/'],
  ])('refuses %s unless browser.allowPrivateNetwork', async (_name, url) => {
    const reply = await rpc(guarded.url, guarded.tokens.rpc, 'browser.navigate', { url: url() });
    expect(reply.error).toMatchObject({ code: -32603, data: { kind: 'forbidden', param: 'url' } });
    expect(reply.error?.message).toContain('browser.allowPrivateNetwork');
  });

  it.each(['file:///etc/passwd', 'javascript:alert(1)', 'ftp://example.com/', 'chrome://settings', 'not a url'])(
    'refuses %s: http and https only',
    async (url) => {
      const reply = await rpc(guarded.url, guarded.tokens.rpc, 'browser.open', { url });
      expect(reply.error).toMatchObject({ code: -32603, data: { kind: 'forbidden', param: 'url' } });
    },
  );

  it('started no browser for the refused calls', async () => {
    expect((await rpc(guarded.url, guarded.tokens.rpc, 'browser.status')).result).toEqual({ running: false });
  });

  it('tells private, loopback and link-local addresses from public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.8',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('refuses the browser to rpc-less tokens', async () => {
    const reply = await rpc(guarded.url, guarded.tokens.adminOnly, 'browser.status');
    expect(reply.error).toMatchObject({ code: -32603, message: "Insufficient scope: requires 'rpc'" });
  });
});

describe('without Chromium', () => {
  const calls: [string, unknown][] = [
    ['browser.status', undefined],
    ['browser.start', undefined],
    ['browser.stop', undefined],
    ['browser.navigate', { url: 'https://example.com/' }],
    ['browser.snapshot', undefined],
    ['browser.screenshot', { fullPage: true }],
    ['browser.pdf', undefined],
    ['browser.act', { action: 'click', selector: 'button' }],
    ['browser.tabs', undefined],
    ['browser.open', {}],
    ['browser.focus', { tabId: 'tab-1' }],
    ['browser.close', { tabId: 'tab-1' }],
    ['browser.console', undefined],
  ];

  it.each(calls)('%s answers unavailable with how to install it', async (method, params) => {
    const reply = await rpc(missing.url, missing.tokens.rpc, method, params);
    expect(reply.error).toMatchObject({ code: -32603, data: { kind: 'unavailable' } });
    expect(reply.error?.message).toContain('/nonexistent/chromium');
    expect(reply.error?.message).toContain('apt-get install chromium');
    expect(reply.error?.message).toContain('browser.executablePath');
  });

  it('covers every browser method, and leaves the rest of the gateway working', async () => {
    const discovered = await rpc(missing.url, missing.tokens.admin, 'rpc.discover');
    const methods = (discovered.result?.methods as { name: string }[])
      .map((method) => method.name)
      .filter((name) => name.startsWith('browser.'));
    expect(methods.sort()).toEqual(calls.map(([name]) => name).sort());
    expect((await rpc(missing.url, missing.tokens.rpc, 'system.ping')).result).toMatchObject({ pong: true });
  });
});
