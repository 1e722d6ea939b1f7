// Every token browses in a browser context of its own, through a real gateway and a real headless Chromium: another
// token's tabs, pages, console and cookies are out of reach (its tab ids answer not_found like unknown ones), a
// token's browser.stop closes only its own context, and agent tools act in the context of the session's owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { chromiumChildren, rpc, startPageServer, type PageServer, type RpcReply } from './browser-support.js';

const BOB = { id: 'rpc-bob', secret: 'rpc-bob-secret-0123456789abcdefghijklmnop' };
const SECRET = 'hunter2-query-secret';

let llm: FakeLlm;
let pages: PageServer;
let gw: Harness;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  pages = await startPageServer();
  gw = await startGateway({
    extraTokens: [{ id: BOB.id, secret: BOB.secret, scopes: ['rpc'] }],
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
      },
    },
    agents: {
      default: {
        name: 'Browser agent',
        provider: 'fake',
        model: 'fake-model',
        tools: ['browser_navigate', 'browser_tabs'],
      },
    },
    // The pages are on 127.0.0.1.
    browser: { allowPrivateNetwork: true, idleMs: 0 },
  });
});
afterAll(async () => {
  await gw?.close();
  await pages?.close();
  await llm?.close();
});

const alice = (method: string, params?: unknown) => rpc(gw.url, gw.tokens.rpc, method, params);
const bob = (method: string, params?: unknown) => rpc(gw.url, BOB.secret, method, params);
const admin = (method: string, params?: unknown) => rpc(gw.url, gw.tokens.admin, method, params);

function ok(reply: RpcReply): Record<string, unknown> {
  expect(reply.error).toBeUndefined();
  return reply.result ?? {};
}

interface TabRow {
  id: string;
  url: string;
  title: string;
  active: boolean;
}

const tabsOf = async (call: typeof alice) => ok(await call('browser.tabs')).tabs as TabRow[];

/** The tool results the model was sent in its latest request. */
function toolResultsSent(): string[] {
  const body = llm.chatRequests().at(-1)?.body as { messages: { role: string; content?: unknown }[] } | undefined;
  return (body?.messages ?? []).filter((message) => message.role === 'tool').map((message) => String(message.content));
}

describe('browser contexts per token', () => {
  let aliceTabs: TabRow[];

  it("keeps alice's tabs, pages and console out of bob's reach, and answers her tab ids not_found like unknown ones", async () => {
    ok(await alice('browser.navigate', { url: `${pages.origin}/?secret=${SECRET}` }));
    await expect
      .poll(async () => (ok(await alice('browser.console')).entries as unknown[]).length)
      .toBeGreaterThanOrEqual(1);
    ok(await alice('browser.open', { url: `${pages.origin}/form` }));
    aliceTabs = await tabsOf(alice);
    expect(aliceTabs.map((tab) => tab.url)).toEqual([`${pages.origin}/?secret=${SECRET}`, `${pages.origin}/form`]);

    const seenByBob: RpcReply[] = [];
    const asBob = async (method: string, params?: unknown) => {
      const reply = await bob(method, params);
      seenByBob.push(reply);
      return reply;
    };
    expect(ok(await asBob('browser.status'))).toEqual({ running: false });
    expect(ok(await asBob('browser.tabs'))).toEqual({ tabs: [] });
    expect(ok(await asBob('browser.console'))).toEqual({ entries: [] });

    const unknown = await asBob('browser.focus', { tabId: 'tab-000000000000' });
    expect(unknown.error).toMatchObject({ code: -32603, data: { kind: 'not_found', param: 'tabId' } });
    for (const { id } of aliceTabs) {
      for (const method of ['browser.focus', 'browser.close']) {
        const reply = await asBob(method, { tabId: id });
        expect(reply.error).toEqual({ ...unknown.error, message: `Tab not found: ${id}` });
      }
    }

    // Bob's snapshot and screenshot are of his own new, blank tab.
    const snapshot = ok(await asBob('browser.snapshot'));
    expect(snapshot).toMatchObject({ url: 'about:blank' });
    expect(aliceTabs.map((tab) => tab.id)).not.toContain(snapshot.tabId);
    const bobShot = String(ok(await asBob('browser.screenshot')).data);
    const aliceShot = String(ok(await alice('browser.screenshot')).data);
    expect(bobShot).not.toBe(aliceShot);
    expect(ok(await asBob('browser.tabs')).tabs).toEqual([
      { id: snapshot.tabId, url: 'about:blank', title: '', active: true },
    ]);

    const everything = JSON.stringify(seenByBob);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('hello from the page');
    expect(everything).not.toContain('/form');
    // Alice's tabs are all still there, as they were.
    expect(await tabsOf(alice)).toEqual(aliceTabs);
  });

  it("keeps cookies apart: a cookie alice got is not sent from bob's context", async () => {
    ok(await alice('browser.navigate', { url: `${pages.origin}/set-cookie?value=alice-session` }));
    expect(ok(await alice('browser.navigate', { url: `${pages.origin}/cookies` }))).toMatchObject({
      title: 'Cookies: owner=alice-session',
    });
    expect(ok(await bob('browser.navigate', { url: `${pages.origin}/cookies` }))).toMatchObject({
      title: 'Cookies: none',
    });
  });

  it("closes only bob's own context on his browser.stop; alice's tabs keep working", async () => {
    const before = await tabsOf(alice);
    expect(ok(await bob('browser.stop'))).toEqual({ stopped: true });
    expect(ok(await bob('browser.status'))).toEqual({ running: false });
    expect(await tabsOf(alice)).toEqual(before);
    expect(ok(await alice('browser.status'))).toMatchObject({ running: true, tabCount: before.length });
    expect(ok(await alice('browser.navigate', { url: `${pages.origin}/` }))).toMatchObject({ title: 'Home' });
    expect(String(ok(await alice('browser.snapshot')).snapshot)).toContain('heading "Welcome"');
  });

  it("runs an agent's browser tools in the context of the session's owner, also when an admin continues the session", async () => {
    const sessionKey = { tenantId: 'default', userId: 'bob', channelId: 'test', peerId: 'browse' };
    llm.script(
      { toolCalls: [{ name: 'browser_navigate', arguments: { url: `${pages.origin}/cookies` } }] },
      { text: 'Navigated.' },
    );
    expect(ok(await bob('agent.execute', { message: 'open the cookie page', sessionKey }))).toMatchObject({
      response: 'Navigated.',
    });
    // Bob's context, without alice's cookie; the tab is his.
    expect(JSON.parse(toolResultsSent()[0] ?? '{}')).toMatchObject({ title: 'Cookies: none' });
    expect((await tabsOf(bob)).map((tab) => tab.url)).toEqual([`${pages.origin}/cookies`]);
    expect((await tabsOf(alice)).map((tab) => tab.url)).not.toContain(`${pages.origin}/cookies`);

    llm.script({ toolCalls: [{ name: 'browser_tabs', arguments: { action: 'list' } }] }, { text: 'Listed.' });
    expect(ok(await admin('agent.execute', { message: 'list the tabs', sessionKey }))).toMatchObject({
      response: 'Listed.',
    });
    const listed = JSON.parse(toolResultsSent().at(-1) ?? '{}') as { tabs: TabRow[] };
    expect(listed.tabs).toEqual(await tabsOf(bob));
    // The admin's own context was never opened for it.
    expect(ok(await admin('browser.status'))).toEqual({ running: false });
  });

  it('lets only an admin stop every context at once', async () => {
    const refused = await bob('browser.stop', { all: true });
    expect(refused.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
    expect(ok(await alice('browser.status'))).toMatchObject({ running: true });

    expect(ok(await admin('browser.stop', { all: true }))).toEqual({ stopped: true });
    expect(ok(await alice('browser.status'))).toEqual({ running: false });
    expect(ok(await bob('browser.status'))).toEqual({ running: false });
    expect(await chromiumChildren()).toEqual([]);
  });
});
