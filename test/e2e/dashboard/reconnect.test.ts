// Dashboard end to end: the gateway goes away and comes back on the same port; the dashboard reconnects its WebSocket
// with backoff, reloads the page's data, and its live event feed resumes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtDashboard } from '../../support/dashboard-build.js';
import { openDashboardBrowser, type DashboardBrowser } from '../../support/dashboard-browser.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startGateway, type Harness } from '../../support/gateway-harness.js';

describe('dashboard reconnect', () => {
  let llm: FakeLlm;
  let browser: DashboardBrowser;
  const gateways: Harness[] = [];
  const start = async (port = 0) => {
    const gateway = await startGateway({
      gateway: { port, webDistPath: builtDashboard() },
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
    gateways.push(gateway);
    return gateway;
  };
  const chat = (gateway: Harness, sessionKey: string) =>
    fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello', sessionKey }),
    });
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    browser = await openDashboardBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const gateway of gateways) await gateway.close();
    await llm?.close();
  });

  it('reconnects after the gateway restarts and shows what the new process has', async () => {
    const first = await start();
    await chat(first, 'default:before:restart');
    const { page } = browser;
    await page.goto(`${first.url}/app/sessions`);
    await page.getByLabel('Token', { exact: true }).fill(first.tokens.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const status = page.locator('.conn');
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Connected');
    await expect.poll(() => page.getByRole('link', { name: 'default:before:restart' }).count()).toBe(1);

    const port = Number(new URL(first.url).port);
    await first.close();
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Reconnecting…');
    // A new process on the same address, with its own store: the page must show its sessions, not the old list.
    const second = await start(port);
    await chat(second, 'default:after:restart');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('Connected');
    await expect
      .poll(() => page.getByRole('link', { name: 'default:after:restart' }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(await page.getByRole('link', { name: 'default:before:restart' }).count()).toBe(0);

    // The live feed on the overview follows the new process too.
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect
      .poll(() => page.getByRole('region', { name: 'Live events' }).getByText('live', { exact: true }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await chat(second, 'default:after:restart');
    await expect
      .poll(() => page.getByRole('region', { name: 'Live events' }).getByText('message:sent').count(), {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
    // While the gateway was down the browser logged failed connection attempts; nothing else may fail.
    expect(
      browser.problems.filter(
        (problem) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource: net::/.test(problem),
      ),
    ).toEqual([]);
  });
});
