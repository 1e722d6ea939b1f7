// The dashboard tests' world: the fake LLM, a started gateway serving the built dashboard, and a headless Chromium.
import { expect } from 'vitest';
import { builtDashboard } from '../../support/dashboard-build.js';
import {
  openDashboardBrowser,
  PHONE,
  DESKTOP,
  settleLayout,
  type DashboardBrowser,
} from '../../support/dashboard-browser.js';
import { UNLABELLED_CONTROLS } from '../../support/dashboard-scripts.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../../support/gateway-harness.js';
import { stdioFixture } from '../../support/mcp-gateway.js';

export interface DashboardWorld {
  llm: FakeLlm;
  gateway: Harness;
  browser: DashboardBrowser;
  close(): Promise<void>;
}

/**
 * `extraAgents`: agents beside the fixture's default and guarded ones (a test's own world); `skills`, `learning`,
 * `channels` and `terminal`: those config sections (the skills dirs, the reflect interval, chat connections,
 * terminal drives on).
 */
export async function startDashboardWorld(
  options: Pick<HarnessOptions, 'app' | 'skills' | 'learning' | 'channels' | 'terminal'> & {
    extraAgents?: HarnessOptions['agents'];
  } = {},
): Promise<DashboardWorld> {
  const { extraAgents, ...harnessOptions } = options;
  const webDistPath = builtDashboard();
  const llm = await startFakeLlm({ models: ['fake-model'] });
  const gateway = await startGateway({
    ...harnessOptions,
    gateway: { webDistPath },
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512, cost: { input: 1, output: 2 } }],
      },
    },
    agents: {
      default: { name: 'Assistant', provider: 'fake', model: 'fake-model', tools: ['current_time'] },
      // Every current_time call of this agent waits for an operator (the Approvals page).
      guarded: {
        name: 'Guarded',
        provider: 'fake',
        model: 'fake-model',
        tools: ['current_time'],
        requireApproval: ['current_time'],
      },
      ...extraAgents,
    },
    // Started on first use only (the MCP page): one server that answers, one whose command does not exist.
    mcp: {
      servers: {
        files: stdioFixture({ tools: ['echo', 'pid', 'slow'] }),
        gone: { transport: 'stdio', command: '/nonexistent/mcp-server' },
      },
    },
  });
  const browser = await openDashboardBrowser();
  return {
    llm,
    gateway,
    browser,
    async close() {
      await browser.close();
      await gateway.close();
      await llm.close();
    },
  };
}

/** Opens `/app/<path>`, signs in with `secret` when the form shows, and waits for the page heading. */
export async function openSignedIn(
  world: DashboardWorld,
  path = '',
  secret = world.gateway.tokens.admin,
): Promise<void> {
  const { page } = world.browser;
  await page.goto(`${world.gateway.url}/app/${path}`);
  const tokenField = page.getByLabel('Token', { exact: true });
  if (await tokenField.isVisible()) {
    await tokenField.fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await expect
    .poll(() => page.getByRole('status').filter({ hasText: 'Connected' }).count(), { timeout: 10_000 })
    .toBe(1);
}

/** Controls a screen reader could not name: inputs without a label, buttons and links without text. */
export async function unlabelledControls(world: DashboardWorld): Promise<unknown> {
  return world.browser.page.evaluate(UNLABELLED_CONTROLS);
}

/** Screenshots at both widths, checks nothing sticks out sideways at phone width and every control has a name. */
export async function capture(world: DashboardWorld, name: string): Promise<void> {
  const { page } = world.browser;
  expect(await unlabelledControls(world), `${name}: controls without an accessible name`).toEqual([]);
  await world.browser.screenshots(name);
  await page.setViewportSize(PHONE);
  await settleLayout(page);
  expect(await world.browser.horizontalOverflow(), `${name} overflows at ${PHONE.width} px`).toBe(0);
  await page.setViewportSize(DESKTOP);
  await settleLayout(page);
}
