// browser.* end to end: a real gateway drives a real headless Chromium over /rpc on pages served on localhost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import {
  chromiumChildren,
  pngSize,
  refOf,
  rpc,
  startPageServer,
  startSink,
  type PageServer,
  type RpcReply,
} from './browser-support.js';

const VIEWPORT = { width: 640, height: 480 };

let pages: PageServer;
let gw: Harness;
beforeAll(async () => {
  pages = await startPageServer();
  // The pages are on 127.0.0.1, so this gateway allows private addresses; the refusal has its own test below.
  gw = await startGateway({ browser: { allowPrivateNetwork: true, viewport: VIEWPORT, idleMs: 0 } });
});
afterAll(async () => {
  await gw?.close();
  await pages?.close();
});

const call = (method: string, params?: unknown) => rpc(gw.url, gw.tokens.rpc, method, params);

async function result(method: string, params?: unknown): Promise<Record<string, unknown>> {
  const reply = await call(method, params);
  expect(reply.error, `${method} failed`).toBeUndefined();
  return reply.result ?? {};
}

async function snapshotText(): Promise<string> {
  return String((await result('browser.snapshot')).snapshot);
}

describe('browser methods', () => {
  it('reports a stopped browser, then starts one on browser.start', async () => {
    expect(await result('browser.status')).toEqual({ running: false });
    expect(await result('browser.start')).toEqual({ started: true });
    expect(await result('browser.start')).toEqual({ started: true });
    expect(await result('browser.status')).toMatchObject({ running: true, tabCount: 1 });
  });

  it('navigates and answers the final url and title', async () => {
    const navigated = await result('browser.navigate', { url: `${pages.origin}/redirect` });
    expect(navigated).toMatchObject({
      url: `${pages.origin}/form`,
      title: 'Form',
      status: 200,
      tabId: expect.any(String),
    });
    expect(await result('browser.status')).toEqual({ running: true, url: `${pages.origin}/form`, tabCount: 1 });
  });

  it('snapshots the page with refs that act clicks by', async () => {
    await result('browser.navigate', { url: `${pages.origin}/` });
    const before = await snapshotText();
    expect(before).toContain('heading "Welcome"');
    expect(before).toContain('Not clicked yet');
    const clicked = await result('browser.act', { action: 'click', ref: refOf(before, 'button "Press me"') });
    expect(clicked).toMatchObject({ action: 'click', title: 'Home' });
    const after = await snapshotText();
    expect(after).toContain('Button was clicked');
    expect(after).not.toContain('Not clicked yet');
  });

  it('fills a form, selects an option and submits it', async () => {
    await result('browser.navigate', { url: `${pages.origin}/form` });
    const snapshot = await snapshotText();
    await result('browser.act', { action: 'fill', ref: refOf(snapshot, 'textbox "Name"'), value: 'Ada Lovelace' });
    expect(
      await result('browser.act', { action: 'select', selector: 'select[name=colour]', value: 'blue' }),
    ).toMatchObject({ selected: ['blue'] });
    await result('browser.act', { action: 'click', selector: 'button[type=submit]' });
    await result('browser.act', { action: 'wait', text: 'Hello, Ada Lovelace in blue' });
    const status = await result('browser.status');
    expect(status.url).toBe(`${pages.origin}/submitted?name=Ada+Lovelace&colour=blue`);
  });

  it('answers -32602 naming an unknown action, and not_found for a ref the page does not have', async () => {
    const unknown = await call('browser.act', { action: 'teleport', selector: 'body' });
    expect(unknown.error).toMatchObject({ code: -32602, data: { kind: 'invalid_params', param: 'action' } });
    expect(unknown.error?.message).toContain("'teleport'");
    const missingTarget = await call('browser.act', { action: 'click' });
    expect(missingTarget.error).toMatchObject({ code: -32602, data: { param: 'selector' } });
    const staleRef = await call('browser.act', { action: 'click', ref: 'e999' });
    expect(staleRef.error).toMatchObject({ code: -32603, data: { kind: 'not_found', param: 'ref' } });
  });

  it('takes a PNG screenshot of the viewport, or of the whole page', async () => {
    await result('browser.navigate', { url: `${pages.origin}/tall` });
    const viewport = await result('browser.screenshot');
    expect(Object.keys(viewport)).toEqual(['data']);
    expect(pngSize(Buffer.from(String(viewport.data), 'base64'))).toEqual(VIEWPORT);
    const full = pngSize(Buffer.from(String((await result('browser.screenshot', { fullPage: true })).data), 'base64'));
    expect(full.width).toBe(VIEWPORT.width);
    expect(full.height).toBeGreaterThanOrEqual(3000);
  });

  it('prints the page as a PDF', async () => {
    const pdf = await result('browser.pdf');
    expect(Buffer.from(String(pdf.data), 'base64').subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('saves a screenshot and a PDF as media when asked, served by /media/:id as the same bytes', async () => {
    await result('browser.navigate', { url: `${pages.origin}/` });
    for (const [method, contentType] of [
      ['browser.screenshot', 'image/png'],
      ['browser.pdf', 'application/pdf'],
    ] as const) {
      const { data, mediaId } = (await result(method, { save: true })) as { data: string; mediaId: string };
      const served = await fetch(`${gw.url}/media/${mediaId}`, {
        headers: { authorization: `Bearer ${gw.tokens.rpc}` },
      });
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(contentType);
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(data, 'base64'))).toBe(true);
    }
  });

  it("keeps the active tab's console messages and page errors", async () => {
    await result('browser.navigate', { url: `${pages.origin}/` });
    await expect
      .poll(async () => ((await result('browser.console')).entries as unknown[]).length)
      .toBeGreaterThanOrEqual(3);
    const { entries } = await result('browser.console');
    expect(entries).toEqual(
      expect.arrayContaining([
        { level: 'log', text: 'hello from the page', timestamp: expect.any(Number) },
        { level: 'warning', text: 'careful', timestamp: expect.any(Number) },
        { level: 'error', text: 'late failure', timestamp: expect.any(Number) },
      ]),
    );
  });

  it('opens, lists, focuses and closes tabs by stable ids', async () => {
    const [first] = (await result('browser.tabs')).tabs as { id: string }[];
    const opened = await result('browser.open', { url: `${pages.origin}/form` });
    const second = String(opened.tabId);
    expect(second).not.toBe(first?.id);
    expect((await result('browser.tabs')).tabs).toEqual([
      { id: first?.id, url: `${pages.origin}/`, title: 'Home', active: false },
      { id: second, url: `${pages.origin}/form`, title: 'Form', active: true },
    ]);
    expect(await result('browser.focus', { tabId: first?.id })).toEqual({ focused: true, tabId: first?.id });
    expect(await result('browser.status')).toMatchObject({ url: `${pages.origin}/`, tabCount: 2 });
    expect(await result('browser.close', { tabId: second })).toEqual({ closed: true, tabId: second });
    expect((await result('browser.tabs')).tabs).toEqual([
      { id: first?.id, url: `${pages.origin}/`, title: 'Home', active: true },
    ]);
    const gone = await call('browser.focus', { tabId: second });
    expect(gone.error).toMatchObject({ code: -32603, data: { kind: 'not_found', param: 'tabId' } });
  });

  it("blocks the page's own requests to private addresses once allowPrivateNetwork is turned off", async () => {
    await result('browser.navigate', { url: `${pages.origin}/` });
    await result('browser.act', { action: 'click', selector: '#fetch' });
    await result('browser.act', { action: 'wait', text: 'fetched pong' });
    expect(
      (await rpc(gw.url, gw.tokens.admin, 'config.patch', { browser: { allowPrivateNetwork: false } })).error,
    ).toBeUndefined();
    try {
      await result('browser.act', { action: 'click', selector: '#fetch' });
      await result('browser.act', { action: 'wait', text: 'fetch blocked' });
      const refused: RpcReply = await call('browser.navigate', { url: `${pages.origin}/form` });
      expect(refused.error).toMatchObject({ code: -32603, data: { kind: 'forbidden', param: 'url' } });
    } finally {
      expect(
        (await rpc(gw.url, gw.tokens.admin, 'config.patch', { browser: { allowPrivateNetwork: true } })).error,
      ).toBeUndefined();
    }
  });

  it("stops an open page's WebSocket to loopback once allowPrivateNetwork is turned off: nothing reaches it", async () => {
    const sink = await startSink();
    try {
      await result('browser.navigate', {
        url: `${pages.origin}/probe?ws=${encodeURIComponent(`ws://127.0.0.1:${sink.port}/socket`)}`,
      });
      expect(
        (await rpc(gw.url, gw.tokens.admin, 'config.patch', { browser: { allowPrivateNetwork: false } })).error,
      ).toBeUndefined();
      try {
        await result('browser.act', { action: 'click', selector: '#ws' });
        await result('browser.act', { action: 'wait', text: 'done:' });
        expect(await snapshotText()).toContain('done: ws failed');
        expect(sink.connections()).toBe(0);
      } finally {
        expect(
          (await rpc(gw.url, gw.tokens.admin, 'config.patch', { browser: { allowPrivateNetwork: true } })).error,
        ).toBeUndefined();
      }
    } finally {
      await sink.close();
    }
  });

  it('notices a killed browser and starts a fresh one on the next call', async () => {
    const [pid] = await chromiumChildren();
    expect(pid).toEqual(expect.any(Number));
    process.kill(pid ?? 0, 'SIGKILL');
    await expect.poll(async () => (await result('browser.status')).running).toBe(false);
    const navigated = await result('browser.navigate', { url: `${pages.origin}/` });
    expect(navigated).toMatchObject({ title: 'Home' });
    expect(await result('browser.status')).toMatchObject({ running: true, tabCount: 1 });
    expect(await chromiumChildren()).not.toContain(pid);
  });

  it('stops the browser and closes its tabs', async () => {
    expect(await result('browser.stop')).toEqual({ stopped: true });
    expect(await result('browser.status')).toEqual({ running: false });
    expect(await result('browser.tabs')).toEqual({ tabs: [] });
    expect(await chromiumChildren()).toEqual([]);
  });
});
