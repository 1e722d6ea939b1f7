// The browser operations behind browser.* and the browser_* tools: each one acts in the browser context of one owner
// (a token id), checks Chromium is there, runs within browser.timeoutMs (and the caller's signal), and reports page
// failures as catalogue errors. Another owner's tab id answers not_found, like an id that never existed.
import type { Page, Request, Response } from 'playwright-core';
import type { Logger } from 'pino';
import type { BrowserConfig } from '../config/index.js';
import {
  browserFailed,
  browserTimeout,
  browserUrlRefused,
  isGatewayError,
  tabNotFound,
  tooManyTabs,
} from '../errors.js';
import { assertExecutable, createBrowserSession, type OwnerContext } from './browser-session.js';
import { assertUrlAllowed, checkUrl, type EgressNetwork } from './network-guard.js';
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

/** Every operation but stopAll and shutdown takes `owner` first: the token id whose browser context it acts in. */
export interface BrowserService {
  status(owner: string, signal: AbortSignal): Promise<{ running: boolean; url?: string; tabCount?: number }>;
  start(owner: string, signal: AbortSignal): Promise<void>;
  /** Closes the owner's context and tabs; other owners' contexts are untouched. */
  stop(owner: string, signal: AbortSignal): Promise<void>;
  /** Closes every owner's context and stops Chromium. */
  stopAll(signal: AbortSignal): Promise<void>;
  navigate(owner: string, url: string, signal: AbortSignal): Promise<PageView & { status: number | null }>;
  snapshot(owner: string, signal: AbortSignal): Promise<PageView & { snapshot: string; truncated: boolean }>;
  screenshot(owner: string, options: { fullPage: boolean }, signal: AbortSignal): Promise<Buffer>;
  pdf(owner: string, signal: AbortSignal): Promise<Buffer>;
  act(owner: string, request: ActRequest, signal: AbortSignal): Promise<ActOutcome & PageView>;
  tabs(owner: string, signal: AbortSignal): Promise<TabView[]>;
  open(owner: string, url: string | undefined, signal: AbortSignal): Promise<PageView>;
  focus(owner: string, tabId: string, signal: AbortSignal): Promise<void>;
  close(owner: string, tabId: string, signal: AbortSignal): Promise<void>;
  console(owner: string, signal: AbortSignal): Promise<ConsoleEntry[]>;
  /** Stops the browser at gateway shutdown, whether or not Chromium is still installed. */
  shutdown(): Promise<void>;
}

export interface BrowserServiceDeps {
  config: () => BrowserConfig;
  network: EgressNetwork;
  log: Logger;
  now: () => number;
  newId: () => string;
}

/** How long a failed navigation waits for Chromium's error page to commit. */
export const ERROR_PAGE_WAIT_MS = 5_000;

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';

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
  const { config, network } = deps;
  const session = createBrowserSession(deps);

  /**
   * `owner` is whose idle timer the call holds; null for browser.status, which only looks (polling it must not keep
   * an idle context open), and for the stops.
   */
  async function call<T>(
    operation: string,
    owner: string | null,
    signal: AbortSignal,
    work: () => Promise<T>,
  ): Promise<T> {
    const { executablePath, timeoutMs } = config();
    await assertExecutable(executablePath);
    const timeout = AbortSignal.timeout(timeoutMs);
    const bounded = AbortSignal.any([signal, timeout]);
    const attempt = async () => {
      try {
        return await untilAborted(work(), bounded);
      } catch (error) {
        if (isGatewayError(error)) throw error;
        if (timeout.aborted || (error instanceof Error && error.name === 'TimeoutError'))
          throw browserTimeout(operation, timeoutMs);
        if (signal.aborted) throw browserFailed(operation, 'the caller went away');
        throw browserFailed(operation, firstLine(error));
      }
    };
    return owner === null ? attempt() : session.use(owner, attempt);
  }

  async function activeTab(owner: string): Promise<Tab> {
    const run = await session.ensure(owner);
    return run.tabs.active() ?? run.tabs.add(await run.context.newPage());
  }

  /** A tab can only exist in the owner's open context; asking for one never opens it. */
  function ownedTab(owner: string, tabId: string): { run: OwnerContext; tab: Tab } {
    const run = session.current(owner);
    if (run === undefined) throw tabNotFound(tabId);
    return { run, tab: run.tabs.get(tabId) };
  }

  /** Throws the refusal of `hop`, a URL the navigation to `url` went to, when it is not allowed; blanks the tab. */
  async function refuseHop(page: Page, url: string, hop: string): Promise<void> {
    const verdict = await checkUrl(hop, false, network);
    if (verdict.allowed) return;
    await page.goto('about:blank');
    throw browserUrlRefused(hop, hop === url ? verdict.reason : `redirected: ${verdict.reason}`);
  }

  /**
   * Loads `url`. The egress proxy refuses every hop to a private address before it is requested, which fails the
   * navigation; that failure (or a navigation that ended on such an address) answers forbidden naming the hop.
   */
  async function load(page: Page, url: string): Promise<number | null> {
    const guarded = !config().allowPrivateNetwork;
    let failedHop: string | undefined;
    const onFailed = (request: Request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) failedHop = request.url();
    };
    page.on('requestfailed', onFailed);
    let response: Response | null;
    try {
      response = await page.goto(url);
    } catch (error) {
      // Chromium commits its error page after the failure is reported; a navigation started before that (the blank
      // page below, the caller's next one) would be interrupted by it.
      if (error instanceof Error && error.message.includes('net::ERR_')) {
        await page
          .waitForURL((at) => at.protocol === 'chrome-error:', { timeout: ERROR_PAGE_WAIT_MS })
          .catch(() => undefined);
      }
      if (guarded && failedHop !== undefined) await refuseHop(page, url, failedHop);
      throw error;
    } finally {
      page.off('requestfailed', onFailed);
    }
    const finalUrl = page.url();
    if (guarded && finalUrl !== url) await refuseHop(page, url, finalUrl);
    return response?.status() ?? null;
  }

  return {
    status: (owner, signal) =>
      call('browser.status', null, signal, async () => {
        const run = session.current(owner);
        if (run === undefined) return { running: false };
        const active = run.tabs.active();
        return {
          running: true,
          ...(active === undefined ? {} : { url: active.page.url() }),
          tabCount: run.tabs.size(),
        };
      }),
    start: (owner, signal) => call('browser.start', owner, signal, async () => void (await session.ensure(owner))),
    stop: (owner, signal) => call('browser.stop', null, signal, () => session.stop(owner)),
    stopAll: (signal) => call('browser.stop', null, signal, () => session.stopAll()),
    navigate: (owner, url, signal) =>
      call('browser.navigate', owner, signal, async () => {
        await assertUrlAllowed(url, config().allowPrivateNetwork, network);
        const tab = await activeTab(owner);
        const status = await load(tab.page, url);
        return { ...(await pageView(tab)), status };
      }),
    snapshot: (owner, signal) =>
      call('browser.snapshot', owner, signal, async () => {
        const tab = await activeTab(owner);
        const full = await tab.page.locator(':root').ariaSnapshot({ mode: 'ai' });
        const { maxSnapshotChars } = config();
        const truncated = full.length > maxSnapshotChars;
        return { ...(await pageView(tab)), snapshot: truncated ? full.slice(0, maxSnapshotChars) : full, truncated };
      }),
    screenshot: (owner, { fullPage }, signal) =>
      call('browser.screenshot', owner, signal, async () =>
        (await activeTab(owner)).page.screenshot({ fullPage, type: 'png' }),
      ),
    pdf: (owner, signal) =>
      call('browser.pdf', owner, signal, async () => {
        // Chromium prints to PDF only without a window (Page.printToPDF).
        if (!config().headless) throw browserFailed('browser.pdf', 'PDF output needs browser.headless: true');
        return (await activeTab(owner)).page.pdf({ printBackground: true });
      }),
    act: (owner, request, signal) => {
      checkAction(request.action);
      return call('browser.act', owner, signal, async () => {
        const tab = await activeTab(owner);
        const outcome = await performAction(tab.page, request, config().timeoutMs);
        return { ...outcome, ...(await pageView(tab)) };
      });
    },
    tabs: (owner, signal) =>
      call('browser.tabs', owner, signal, async () => {
        const run = session.current(owner);
        if (run === undefined) return [];
        const active = run.tabs.active();
        return Promise.all(
          run.tabs.list().map(async (tab) => ({
            id: tab.id,
            url: tab.page.url(),
            title: await tab.page.title(),
            active: tab === active,
          })),
        );
      }),
    open: (owner, url, signal) =>
      call('browser.open', owner, signal, async () => {
        if (url !== undefined) await assertUrlAllowed(url, config().allowPrivateNetwork, network);
        const run = await session.ensure(owner);
        const { maxTabs } = config();
        if (run.tabs.size() >= maxTabs) throw tooManyTabs(maxTabs);
        const tab = run.tabs.add(await run.context.newPage());
        run.tabs.focus(tab.id);
        if (url !== undefined) await load(tab.page, url);
        return pageView(tab);
      }),
    focus: (owner, tabId, signal) =>
      call('browser.focus', owner, signal, async () => {
        const { run, tab } = ownedTab(owner, tabId);
        await tab.page.bringToFront();
        run.tabs.focus(tab.id);
      }),
    close: (owner, tabId, signal) =>
      call('browser.close', owner, signal, async () => {
        const { run, tab } = ownedTab(owner, tabId);
        await tab.page.close();
        run.tabs.remove(tab.id);
      }),
    console: (owner, signal) =>
      call('browser.console', owner, signal, async () => [...(session.current(owner)?.tabs.active()?.console ?? [])]),
    shutdown: () => session.stopAll(),
  };
}
