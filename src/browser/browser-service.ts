// The browser operations behind browser.* and the browser_* tools: each one checks Chromium is there, runs within
// browser.timeoutMs (and the caller's signal), and reports page failures as catalogue errors.
import type { Page } from 'playwright-core';
import type { Logger } from 'pino';
import type { BrowserConfig } from '../config/index.js';
import { browserFailed, browserTimeout, browserUrlRefused, isGatewayError, tabNotFound, tooManyTabs } from '../errors.js';
import { assertExecutable, createBrowserSession, type RunningBrowser } from './browser-session.js';
import { assertUrlAllowed, checkUrl } from './network-guard.js';
import { checkAction, performAction, type ActOutcome, type ActRequest } from './page-actions.js';
import type { ConsoleEntry, Tab } from './tab-registry.js';

export interface TabView {
  id: string;
  url: string;
  title: string;
  active: boolean;
}

export interface PageView {
  tabId: string;
  url: string;
  title: string;
}

export interface BrowserService {
  status(signal: AbortSignal): Promise<{ running: boolean; url?: string; tabCount?: number }>;
  start(signal: AbortSignal): Promise<void>;
  stop(signal: AbortSignal): Promise<void>;
  navigate(url: string, signal: AbortSignal): Promise<PageView & { status: number | null }>;
  snapshot(signal: AbortSignal): Promise<PageView & { snapshot: string; truncated: boolean }>;
  screenshot(options: { fullPage: boolean }, signal: AbortSignal): Promise<Buffer>;
  pdf(signal: AbortSignal): Promise<Buffer>;
  act(request: ActRequest, signal: AbortSignal): Promise<ActOutcome & PageView>;
  tabs(signal: AbortSignal): Promise<TabView[]>;
  open(url: string | undefined, signal: AbortSignal): Promise<PageView>;
  focus(tabId: string, signal: AbortSignal): Promise<void>;
  close(tabId: string, signal: AbortSignal): Promise<void>;
  console(signal: AbortSignal): Promise<ConsoleEntry[]>;
  /** Stops the browser at gateway shutdown, whether or not Chromium is still installed. */
  shutdown(): Promise<void>;
}

export interface BrowserServiceDeps {
  config: () => BrowserConfig;
  log: Logger;
  now: () => number;
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';

/** Resolves with `work` unless `signal` aborts first; the work itself is bounded by Playwright's own timeouts. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

async function pageView(tab: Tab): Promise<PageView> {
  return { tabId: tab.id, url: tab.page.url(), title: await tab.page.title() };
}

export function createBrowserService(deps: BrowserServiceDeps): BrowserService {
  const { config } = deps;
  const session = createBrowserSession(deps);

  /** `isUse: false` for browser.status, which only looks: polling it must not keep an idle browser alive. */
  async function call<T>(operation: string, signal: AbortSignal, work: () => Promise<T>, isUse = true): Promise<T> {
    const { executablePath, timeoutMs } = config();
    await assertExecutable(executablePath);
    const timeout = AbortSignal.timeout(timeoutMs);
    const bounded = AbortSignal.any([signal, timeout]);
    const attempt = async () => {
      try {
        return await untilAborted(work(), bounded);
      } catch (error) {
        if (isGatewayError(error)) throw error;
        if (timeout.aborted || (error instanceof Error && error.name === 'TimeoutError')) throw browserTimeout(operation, timeoutMs);
        if (signal.aborted) throw browserFailed(operation, 'the caller went away');
        throw browserFailed(operation, firstLine(error));
      }
    };
    return isUse ? session.use(attempt) : attempt();
  }

  async function activeTab(): Promise<Tab> {
    const run = await session.ensure();
    return run.tabs.active() ?? run.tabs.add(await run.context.newPage());
  }

  /** A tab can only exist in a running browser; asking for one never launches it. */
  function runningTab(tabId: string): { run: RunningBrowser; tab: Tab } {
    const run = session.current();
    if (run === undefined) throw tabNotFound(tabId);
    return { run, tab: run.tabs.get(tabId) };
  }

  /** Loads `url` and refuses a redirect that ended on a private address, leaving the tab blank. */
  async function load(page: Page, url: string): Promise<number | null> {
    const response = await page.goto(url);
    const finalUrl = page.url();
    if (finalUrl !== url && !config().allowPrivateNetwork) {
      const verdict = await checkUrl(finalUrl, false);
      if (!verdict.allowed) {
        await page.goto('about:blank');
        throw browserUrlRefused(finalUrl, `redirected: ${verdict.reason}`);
      }
    }
    return response?.status() ?? null;
  }

  return {
    status: (signal) =>
      call('browser.status', signal, async () => {
        const run = session.current();
        if (run === undefined) return { running: false };
        const active = run.tabs.active();
        return { running: true, ...(active === undefined ? {} : { url: active.page.url() }), tabCount: run.tabs.size() };
      }, false),
    start: (signal) => call('browser.start', signal, async () => void (await session.ensure())),
    stop: (signal) => call('browser.stop', signal, () => session.stop()),
    navigate: (url, signal) =>
      call('browser.navigate', signal, async () => {
        await assertUrlAllowed(url, config().allowPrivateNetwork);
        const tab = await activeTab();
        const status = await load(tab.page, url);
        return { ...(await pageView(tab)), status };
      }),
    snapshot: (signal) =>
      call('browser.snapshot', signal, async () => {
        const tab = await activeTab();
        const full = await tab.page.locator(':root').ariaSnapshot({ mode: 'ai' });
        const { maxSnapshotChars } = config();
        const truncated = full.length > maxSnapshotChars;
        return { ...(await pageView(tab)), snapshot: truncated ? full.slice(0, maxSnapshotChars) : full, truncated };
      }),
    screenshot: ({ fullPage }, signal) =>
      call('browser.screenshot', signal, async () => (await activeTab()).page.screenshot({ fullPage, type: 'png' })),
    pdf: (signal) =>
      call('browser.pdf', signal, async () => {
        // Chromium prints to PDF only without a window (Page.printToPDF).
        if (!config().headless) throw browserFailed('browser.pdf', 'PDF output needs browser.headless: true');
        return (await activeTab()).page.pdf({ printBackground: true });
      }),
    act: (request, signal) => {
      checkAction(request.action);
      return call('browser.act', signal, async () => {
        const tab = await activeTab();
        const outcome = await performAction(tab.page, request, config().timeoutMs);
        return { ...outcome, ...(await pageView(tab)) };
      });
    },
    tabs: (signal) =>
      call('browser.tabs', signal, async () => {
        const run = session.current();
        if (run === undefined) return [];
        const active = run.tabs.active();
        return Promise.all(run.tabs.list().map(async (tab) => ({ id: tab.id, url: tab.page.url(), title: await tab.page.title(), active: tab === active })));
      }),
    open: (url, signal) =>
      call('browser.open', signal, async () => {
        if (url !== undefined) await assertUrlAllowed(url, config().allowPrivateNetwork);
        const run = await session.ensure();
        const { maxTabs } = config();
        if (run.tabs.size() >= maxTabs) throw tooManyTabs(maxTabs);
        const tab = run.tabs.add(await run.context.newPage());
        run.tabs.focus(tab.id);
        if (url !== undefined) await load(tab.page, url);
        return pageView(tab);
      }),
    focus: (tabId, signal) =>
      call('browser.focus', signal, async () => {
        const { run, tab } = runningTab(tabId);
        await tab.page.bringToFront();
        run.tabs.focus(tab.id);
      }),
    close: (tabId, signal) =>
      call('browser.close', signal, async () => {
        const { run, tab } = runningTab(tabId);
        await tab.page.close();
        run.tabs.remove(tab.id);
      }),
    console: (signal) =>
      call('browser.console', signal, async () => [...(session.current()?.tabs.active()?.console ?? [])]),
    shutdown: () => session.stop(),
  };
}
