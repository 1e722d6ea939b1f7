// Headless Debian Chromium through playwright-core for the dashboard tests: fresh profile, console errors collected.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { HORIZONTAL_OVERFLOW, TWO_FRAMES } from './dashboard-scripts.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const ARTIFACTS_DIR = resolve(import.meta.dirname, '../../test-artifacts/dashboard');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 812 };

export interface DashboardBrowser {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and failed requests seen so far; a test expects this to stay empty. */
  problems: string[];
  /** Saves `<name>-desktop.png` and `<name>-phone.png` of the page as it is now. */
  screenshots(name: string): Promise<void>;
  /** Widest element overflow beyond the viewport, in px (0 when nothing sticks out horizontally). */
  horizontalOverflow(): Promise<number>;
  close(): Promise<void>;
}

const ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Two animation frames: resize observers (the charts) have redrawn for the new viewport. */
export async function settleLayout(page: Page): Promise<void> {
  await page.evaluate(TWO_FRAMES);
}

export async function openDashboardBrowser(): Promise<DashboardBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-chromium-'));
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: isRoot ? [...ARGS, '--no-sandbox'] : ARGS,
    viewport: DESKTOP,
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Chromium's console line for a failed response omits the URL; this names it.
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`http ${response.status()}: ${new URL(response.url()).pathname}`);
  });
  page.on('dialog', (dialog) => void dialog.accept());
  return {
    context,
    page,
    problems,
    async screenshots(name) {
      for (const [size, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        await page.setViewportSize(viewport);
        await settleLayout(page);
        await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}-${size}.png`), fullPage: true });
      }
      await page.setViewportSize(DESKTOP);
      await settleLayout(page);
    },
    horizontalOverflow: async () => Number(await page.evaluate(HORIZONTAL_OVERFLOW)),
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
