// One Chromium per gateway: launched on first use, stopped on request, when idle or at shutdown; a browser that
// exits on its own (crash, kill) is noticed through its `disconnected` event and the next call starts a fresh one.
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import type { Logger } from 'pino';
import type { BrowserConfig } from '../config/index.js';
import { browserUnavailable } from '../errors.js';
import { guardRequests } from './request-guard.js';
import { createTabRegistry, type TabRegistry } from './tab-registry.js';

export type BrowserState = 'stopped' | 'starting' | 'running' | 'stopping';

export interface RunningBrowser {
  context: BrowserContext;
  tabs: TabRegistry;
  /** A fresh profile per run, removed when the run ends however it ends. */
  userDataDir: string;
  /** The default timeout last given to Playwright (browser.timeoutMs). */
  timeoutMs: number | undefined;
}

export interface BrowserSessionDeps {
  config: () => BrowserConfig;
  log: Logger;
  now: () => number;
}

export interface BrowserSession {
  state(): BrowserState;
  current(): RunningBrowser | undefined;
  /** The running browser, launching one if needed; concurrent callers share one launch. */
  ensure(): Promise<RunningBrowser>;
  stop(): Promise<void>;
  /** Runs `work` as one call: the idle timer is held while it runs and re-armed when the last call ends. */
  use<T>(work: () => Promise<T>): Promise<T>;
}

/** Chromium flags (issue 14): no background traffic, no updater, no first-run UI, no GPU, no QUIC, no sync. */
export function launchArgs(isRoot: boolean): string[] {
  const args = ['--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-gpu', '--disable-quic', '--disable-sync'];
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

export function createBrowserSession(deps: BrowserSessionDeps): BrowserSession {
  const { config, log } = deps;
  let state: BrowserState = 'stopped';
  let current: RunningBrowser | undefined;
  let starting: Promise<RunningBrowser> | undefined;
  let stopping: Promise<void> | undefined;
  let inFlight = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let tabCounter = 0;

  const setState = (next: BrowserState) => {
    state = next;
  };

  const removeProfile = (dir: string) =>
    rm(dir, { recursive: true, force: true }).catch((error: unknown) => log.warn({ err: error, dir }, 'could not remove the browser profile'));

  function clearIdle(): void {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = undefined;
  }

  function armIdle(): void {
    clearIdle();
    const { idleMs } = config();
    if (idleMs === 0 || current === undefined || inFlight > 0) return;
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      log.info({ idleMs }, 'stopping the idle browser');
      void stop();
    }, idleMs);
    idleTimer.unref();
  }

  /** The run ended without stop(): the process crashed or was killed. */
  function onGone(run: RunningBrowser): void {
    if (current !== run) return;
    current = undefined;
    setState('stopped');
    clearIdle();
    log.warn('the browser exited on its own; the next call starts a new one');
    void removeProfile(run.userDataDir);
  }

  async function launch(): Promise<RunningBrowser> {
    const { executablePath, headless, timeoutMs, viewport, consoleEntriesPerTab } = config();
    await assertExecutable(executablePath);
    const userDataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-browser-'));
    let context: BrowserContext;
    try {
      // Loaded at the first launch: playwright-core is large, and most gateways never start a browser.
      const { chromium } = await import('playwright-core');
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath,
        headless,
        args: launchArgs(process.getuid?.() === 0),
        viewport,
        timeout: timeoutMs,
        // The gateway's own shutdown stops the browser; Playwright still kills it if the process exits.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        acceptDownloads: false,
        // Requests a service worker makes would bypass the private-address guard.
        serviceWorkers: 'block',
      });
    } catch (error) {
      await removeProfile(userDataDir);
      throw browserUnavailable(executablePath, `did not start (${firstLine(error)})`);
    }
    await guardRequests(context, () => config().allowPrivateNetwork, log);
    const tabs = createTabRegistry({ consoleEntriesPerTab, now: deps.now, nextId: () => `tab-${++tabCounter}` });
    const run = applyTimeout({ context, tabs, userDataDir, timeoutMs: undefined });
    for (const page of context.pages()) tabs.add(page);
    context.on('page', (page) => tabs.add(page));
    const browser = context.browser();
    if (browser === null) context.on('close', () => onGone(run));
    else browser.on('disconnected', () => onGone(run));
    log.info({ executablePath, headless }, 'browser started');
    return run;
  }

  /** browser.timeoutMs is read live; Playwright's own waits follow it so none outlives the call that started it. */
  function applyTimeout(run: RunningBrowser): RunningBrowser {
    const { timeoutMs } = config();
    if (run.timeoutMs !== timeoutMs) {
      run.context.setDefaultTimeout(timeoutMs);
      run.context.setDefaultNavigationTimeout(timeoutMs);
      run.timeoutMs = timeoutMs;
    }
    return run;
  }

  async function ensure(): Promise<RunningBrowser> {
    if (stopping !== undefined) await stopping;
    if (current !== undefined) return applyTimeout(current);
    starting ??= (async () => {
      setState('starting');
      try {
        const run = await launch();
        current = run;
        setState('running');
        // A launch outlives a caller that gave up waiting; the idle timer must still cover it.
        armIdle();
        return run;
      } catch (error) {
        setState('stopped');
        throw error;
      } finally {
        starting = undefined;
      }
    })();
    return starting;
  }

  async function stop(): Promise<void> {
    if (starting !== undefined) await starting.catch(() => undefined);
    if (stopping !== undefined) return stopping;
    const run = current;
    if (run === undefined) return;
    clearIdle();
    stopping = (async () => {
      setState('stopping');
      current = undefined;
      try {
        await run.context.close();
      } catch (error) {
        log.warn({ err: error }, 'the browser did not close cleanly');
      } finally {
        await removeProfile(run.userDataDir);
        setState('stopped');
        stopping = undefined;
        log.info('browser stopped');
      }
    })();
    return stopping;
  }

  return {
    state: () => state,
    current: () => current,
    ensure,
    stop,
    async use(work) {
      inFlight += 1;
      clearIdle();
      try {
        return await work();
      } finally {
        inFlight -= 1;
        armIdle();
      }
    },
  };
}
