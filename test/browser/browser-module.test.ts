// The browser module with a media store wired in (a small function writing to a temp dir): saved screenshots and
// PDFs through its methods and tools, and the idle stop.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/agents/index.js';
import { createBrowserModule, type BrowserModule, type SaveMedia } from '../../src/browser/index.js';
import { validateConfig, type BrowserConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/index.js';
import { createDispatcher, createRegistry, type JsonRpcResponse } from '../../src/rpc/index.js';
import { pngSize, startPageServer, type PageServer } from './browser-support.js';

interface Saved {
  id: string;
  contentType: string;
  ownerId: string;
  origin?: { sessionKey: string; toolName?: string };
}

let pages: PageServer;
let mediaDir: string;
let module: BrowserModule;
const saved: Saved[] = [];
const log = createLogger({ level: 'silent' });
const IDLE_MS = 1_000;
let config: BrowserConfig;

beforeAll(async () => {
  pages = await startPageServer();
  mediaDir = await mkdtemp(join(tmpdir(), 'browser-media-'));
  const saveMedia: SaveMedia = async ({ data, contentType, ownerId, origin }) => {
    const id = `m${saved.length + 1}`;
    await writeFile(join(mediaDir, id), data);
    saved.push({ id, contentType, ownerId, ...(origin === undefined ? {} : { origin }) });
    return { id };
  };
  config = validateConfig({ browser: { allowPrivateNetwork: true, idleMs: IDLE_MS } }, 'browser module test').browser;
  module = createBrowserModule({ config: () => config, saveMedia, now: Date.now, newId: randomUUID, log });
});
afterAll(async () => {
  await module?.stop?.();
  await pages?.close();
  await rm(mediaDir, { recursive: true, force: true });
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

describe('browser module with a media store', () => {
  it('saves a screenshot and a PDF when asked and answers their media ids', async () => {
    await call('browser.navigate', { url: `${pages.origin}/` });
    const shot = await call('browser.screenshot', { save: true });
    expect(shot).toEqual({ data: expect.any(String), mediaId: 'm1' });
    const stored = await readFile(join(mediaDir, 'm1'));
    expect(stored.equals(Buffer.from(String(shot.data), 'base64'))).toBe(true);
    expect(pngSize(stored)).toEqual({ width: 1280, height: 720 });

    const pdf = await call('browser.pdf', { save: true });
    expect(pdf).toEqual({ data: expect.any(String), mediaId: 'm2' });
    expect((await readFile(join(mediaDir, 'm2'))).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(saved.map(({ contentType }) => contentType)).toEqual(['image/png', 'application/pdf']);
    // The calling token owns what its method call saved.
    expect(saved.map(({ ownerId }) => ownerId)).toEqual(['tester', 'tester']);
  });

  it('stores what browser_screenshot captures under the turn session and gives the model only the id', async () => {
    const tools = createToolRegistry(module.tools ?? []);
    // An admin continuing alice's session: the capture is alice's, the session owner's, not the caller's.
    const ctx = {
      agentId: 'default',
      sessionKey: 'default:alice:test:shot',
      caller: { clientId: 'root', isAdmin: true },
      ownerId: 'alice',
      signal: new AbortController().signal,
    };
    const outcome = await tools.execute('browser_screenshot', { fullPage: true }, ctx);
    expect(outcome.ok).toBe(true);
    expect(JSON.parse(outcome.content)).toEqual({ mediaId: 'm3', contentType: 'image/png', bytes: expect.any(Number) });
    expect(saved.at(-1)).toEqual({
      id: 'm3',
      contentType: 'image/png',
      ownerId: 'alice',
      origin: { sessionKey: 'default:alice:test:shot', toolName: 'browser_screenshot' },
    });
  });

  it('answers upstream_failed naming browser.timeoutMs when a page does not load in time', async () => {
    const before = config;
    config = { ...config, timeoutMs: 1_500 };
    try {
      const response = await dispatch('browser.navigate', { url: `${pages.origin}/hang` });
      expect(response).toMatchObject({ error: { code: -32603, data: { kind: 'upstream_failed' } } });
      expect(JSON.stringify(response)).toContain('did not finish within 1500 ms (browser.timeoutMs)');
    } finally {
      config = before;
    }
  });

  it(`stops the browser after browser.idleMs (${IDLE_MS} ms) without calls`, async () => {
    expect(await call('browser.status')).toMatchObject({ running: true });
    await expect
      .poll(async () => (await call('browser.status')).running, { timeout: 10_000, interval: 300 })
      .toBe(false);
  });
});
