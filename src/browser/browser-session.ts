// One Chromium per gateway, shared, with a browser context of its own (cookies, storage, tabs) for each owning token:
// a context opens on its owner's first call and closes on its owner's browser.stop or after browser.idleMs without
// its owner's calls; Chromium launches with the first context and stops with the last. A browser that exits on its
// own (crash, kill) is noticed through its `disconnected` event and the next call starts a fresh one.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Browser, BrowserContext } from 'playwright-core';
import type { Logger } from 'pino';
import type { BrowserConfig } from '../config/index.js';
import { browserFailed, browserUnavailable } from '../errors.js';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import type { EgressNetwork } from './network-guard.js';
import { createTabRegistry, type TabRegistry } from './tab-registry.js';

/** The browser context of one owning token (a token id). */
export interface OwnerContext {
  owner: string;
  context: BrowserContext;
  tabs: TabRegistry;
  /** The default timeout last given to Playwright (browser.timeoutMs). */
  timeoutMs: number | undefined;
}

export interface BrowserSessionDeps {
  config: () => BrowserConfig;
  network: EgressNetwork;
  log: Logger;
  now: () => number;
  newId: () => string;
}

export interface BrowserSession {
  /** The owner's context when it is open. */
  current(owner: string): OwnerContext | undefined;
  /** The owner's context, opening it (and launching Chromium) if needed; concurrent callers share one opening. */
  ensure(owner: string): Promise<OwnerContext>;
  /** Closes the owner's context and its tabs; Chromium stops with the last context. */
  stop(owner: string): Promise<void>;
  /** Closes every context and stops Chromium (an admin's browser.stop {all: true}, and gateway shutdown). */
  stopAll(): Promise<void>;
  /** Runs `work` as one call of `owner`: its idle timer is held while it runs and re-armed when its last call ends. */
  use<T>(owner: string, work: () => Promise<T>): Promise<T>;
}

interface Launched {
  browser: Browser;
  proxy: EgressProxy;
}

/**
 * Chromium flags (issue 14): no background traffic, no updater, no first-run UI, no GPU, no QUIC, no sync; WebRTC
 * may not send UDP around the egress proxy.
 */
export function launchArgs(isRoot: boolean): string[] {
  const args = [
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-gpu',
    '--disable-quic',
    '--disable-sync',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
  // Chromium refuses to start its sandbox as root; any other user keeps it.
  return isRoot ? [...args, '--no-sandbox'] : args;
}

export async function assertExecutable(executablePath: string): Promise<void> {
  try {
    await access(executablePath, constants.X_OK);
  } catch {
    throw browserUnavailable(executablePath);
  }
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** Six bytes of a fresh id: tab ids say nothing about how many tabs anyone else opened. */
const tabIdOf = (id: string) => `tab-${id.replace(/[^0-9a-zA-Z]/g, '').slice(0, 12)}`;

export function createBrowserSession(deps: BrowserSessionDeps): BrowserSession {
  const { config, log } = deps;
  let launched: Launched | undefined;
  let launching: Promise<Launched> | undefined;
  let closing: Promise<void> | undefined;
  const owners = new Map<string, OwnerContext>();
  const opening = new Map<string, Promise<OwnerContext>>();
  const inFlight = new Map<string, number>();
  const idleTimers = new Map<string, NodeJS.Timeout>();

  function clearIdle(owner: string): void {
    clearTimeout(idleTimers.get(owner));
    idleTimers.delete(owner);
  }

  function armIdle(owner: string): void {
    clearIdle(owner);
    const { idleMs } = config();
    if (idleMs === 0 || !owners.has(owner) || (inFlight.get(owner) ?? 0) > 0) return;
    const timer = setTimeout(() => {
      idleTimers.delete(owner);
      log.info({ idleMs }, 'closing an idle browser context');
      void stop(owner);
    }, idleMs);
    timer.unref();
    idleTimers.set(owner, timer);
  }

  function forgetContexts(): void {
    for (const owner of owners.keys()) clearIdle(owner);
    owners.clear();
  }

  /** The browser ended without stopAll(): the process crashed or was killed. */
  function onGone(run: Launched): void {
    if (launched !== run) return;
    launched = undefined;
    forgetContexts();
    void run.proxy.close();
    log.warn('the browser exited on its own; the next call starts a new one');
  }

  async function launch(): Promise<Launched> {
    const { executablePath, headless, timeoutMs } = config();
    await assertExecutable(executablePath);
    const proxy = await startEgressProxy({
      allowPrivateNetwork: () => config().allowPrivateNetwork,
      network: deps.network,
      log,
    });
    let browser: Browser;
    try {
      // Loaded at the first launch: playwright-core is large, and most gateways never start a browser.
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath,
        headless,
        args: launchArgs(process.getuid?.() === 0),
        timeout: timeoutMs,
        // Everything the pages load goes through the egress proxy; `<-loopback>` keeps Chromium from sending
        // loopback addresses around it. The proxy's login keeps other local processes from using it.
        proxy: { server: proxy.url, bypass: '<-loopback>', username: proxy.username, password: proxy.password },
        // The gateway's own shutdown stops the browser; Playwright still kills it if the process exits.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      await proxy.close();
      throw browserUnavailable(executablePath, `did not start (${firstLine(error)})`);
    }
    const run = { browser, proxy };
    browser.on('disconnected', () => onGone(run));
    log.info({ executablePath, headless }, 'browser started');
    return run;
  }

  async function ensureBrowser(): Promise<Launched> {
    while (closing !== undefined) await closing;
    if (launched !== undefined) return launched;
    launching ??= launch()
      .then((run) => (launched = run))
      .finally(() => {
        launching = undefined;
      });
    return launching;
  }

  /** browser.timeoutMs is read live; Playwright's own waits follow it so none outlives the call that started it. */
  function applyTimeout(run: OwnerContext): OwnerContext {
    const { timeoutMs } = config();
    if (run.timeoutMs !== timeoutMs) {
      run.context.setDefaultTimeout(timeoutMs);
      run.context.setDefaultNavigationTimeout(timeoutMs);
      run.timeoutMs = timeoutMs;
    }
    return run;
  }

  async function openContext(owner: string): Promise<OwnerContext> {
    const run = await ensureBrowser();
    const { viewport, consoleEntriesPerTab } = config();
    // Requests a service worker makes would outlive the page that started them; the proxy would still check them.
    const context = await run.browser.newContext({ viewport, acceptDownloads: false, serviceWorkers: 'block' });
    if (launched !== run) {
      await context.close().catch(() => undefined);
      throw browserFailed('the browser', 'it was stopped while the call started');
    }
    const tabs = createTabRegistry({ consoleEntriesPerTab, now: deps.now, nextId: () => tabIdOf(deps.newId()) });
    const entry = applyTimeout({ owner, context, tabs, timeoutMs: undefined });
    context.on('page', (page) => tabs.add(page));
    context.on('close', () => {
      if (owners.get(owner) !== entry) return;
      owners.delete(owner);
      clearIdle(owner);
    });
    tabs.add(await context.newPage());
    owners.set(owner, entry);
    // An opening outlives a caller that gave up waiting; the idle timer must still cover it.
    armIdle(owner);
    return entry;
  }

  async function ensure(owner: string): Promise<OwnerContext> {
    const existing = owners.get(owner);
    if (existing !== undefined) return applyTimeout(existing);
    let pending = opening.get(owner);
    if (pending === undefined) {
      pending = openContext(owner).finally(() => opening.delete(owner));
      opening.set(owner, pending);
    }
    return pending;
  }

  async function stopBrowser(): Promise<void> {
    if (launching !== undefined) await launching.catch(() => undefined);
    if (closing !== undefined) return closing;
    const run = launched;
    if (run === undefined) return;
    launched = undefined;
    forgetContexts();
    closing = (async () => {
      try {
        await run.browser.close();
      } catch (error) {
        log.warn({ err: error }, 'the browser did not close cleanly');
      } finally {
        await run.proxy.close();
        closing = undefined;
        log.info('browser stopped');
      }
    })();
    return closing;
  }

  async function stop(owner: string): Promise<void> {
    await opening.get(owner)?.catch(() => undefined);
    const entry = owners.get(owner);
    if (entry === undefined) return;
    owners.delete(owner);
    clearIdle(owner);
    try {
      await entry.context.close();
    } catch (error) {
      log.warn({ err: error }, 'a browser context did not close cleanly');
    }
    log.info('browser context closed');
    if (owners.size === 0 && opening.size === 0) await stopBrowser();
  }

  return {
    current: (owner) => owners.get(owner),
    ensure,
    stop,
    async stopAll() {
      await Promise.all([...opening.values()].map((pending) => pending.catch(() => undefined)));
      await stopBrowser();
    },
    async use(owner, work) {
      inFlight.set(owner, (inFlight.get(owner) ?? 0) + 1);
      clearIdle(owner);
      try {
        return await work();
      } finally {
        const left = (inFlight.get(owner) ?? 1) - 1;
        if (left === 0) inFlight.delete(owner);
        else inFlight.set(owner, left);
        armIdle(owner);
      }
    },
  };
}
