// Dashboard end to end: memory, scheduler, observability and browser pages, the dark theme and keyboard access.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_BACKGROUND, FOCUSED_TEXT, IS_FOCUS_IN_MAIN, THEME_ATTRIBUTE } from '../../support/dashboard-scripts.js';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard pages', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('stores, finds, inspects and deletes a memory', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'memory');
    await page.getByLabel('Content', { exact: true }).fill('The staging database lives in Frankfurt.');
    await page.getByRole('button', { name: 'Store', exact: true }).click();
    await expect.poll(() => page.getByText('Stored.').count()).toBe(1);
    await page.getByLabel('Query', { exact: true }).fill('Frankfurt');
    await page.getByRole('button', { name: 'Search' }).click();
    const search = page.getByRole('region', { name: 'Search' });
    await expect.poll(() => search.getByText('The staging database lives in Frankfurt.').count()).toBe(1);
    await search.getByRole('button', { name: /^Inspect / }).click();
    await expect
      .poll(() => page.getByRole('region', { name: 'Entry' }).getByText('fact', { exact: true }).count())
      .toBe(1);
    await capture(world, 'memory');
    await search.getByRole('button', { name: /^Delete / }).click();
    await expect.poll(() => page.getByText('Entry deleted.').count()).toBe(1);
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: /^Browse/ })
          .getByText('No entries.')
          .count(),
      )
      .toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it('adds a job (a bad cron expression is refused by its field), runs it now and lists the run', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'scheduler');
    await page.getByRole('button', { name: 'New job' }).click();
    const form = page.getByRole('form', { name: 'New job' });
    await form.getByLabel('Name', { exact: true }).fill('morning-report');
    await form.getByLabel('Cron expression').fill('not a cron');
    await form.getByLabel('Message to the agent').fill('Summarise the night.');
    await form.getByRole('button', { name: 'Add job' }).click();
    await expect.poll(() => page.locator('#new-job-expr-error').count()).toBe(1);
    await form.getByLabel('Cron expression').fill('0 7 * * *');
    await form.getByRole('button', { name: 'Add job' }).click();
    await expect.poll(() => page.getByText('Job morning-report added.').count()).toBe(1);
    const row = page.getByRole('row', { name: /morning-report/ });
    await row.getByRole('button', { name: 'Run now' }).click();
    await expect.poll(() => page.getByText('morning-report fired.').count()).toBe(1);
    await row.getByRole('button', { name: 'Runs' }).click();
    const runs = page.getByRole('region', { name: 'Runs of morning-report' });
    await expect
      .poll(
        async () => {
          await runs.getByRole('button', { name: 'Refresh' }).click();
          return runs.locator('li').count();
        },
        { timeout: 10_000 },
      )
      .toBeGreaterThan(0);
    await capture(world, 'scheduler');
    expect(world.browser.problems).toEqual([]);
  });

  it("acts on another token's job of the same name, not the admin's own", async () => {
    const { page } = world.browser;
    const rpc = (method: string, params: unknown) =>
      callRpc(world.gateway.url, world.gateway.tokens.rpc, method, params);
    expect(
      (
        await rpc('cron.add', {
          name: 'morning-report',
          message: 'Theirs.',
          schedule: { kind: 'cron', expr: '0 8 * * *' },
        })
      ).error,
    ).toBeUndefined();
    await openSignedIn(world, 'scheduler');
    const theirs = page.getByRole('row', { name: /morning-report\s+rpc/ });
    await expect.poll(() => theirs.count()).toBe(1);
    await theirs.getByRole('button', { name: 'Run now' }).click();
    await expect.poll(() => page.getByText('morning-report fired.').count()).toBe(1);
    await expect
      .poll(
        async () => ((await rpc('cron.runs', { jobName: 'morning-report' })).result as { runs: unknown[] }).runs.length,
        { timeout: 10_000 },
      )
      .toBeGreaterThan(0);
    await theirs.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByText('morning-report removed.').count()).toBe(1);
    expect((await rpc('cron.status', { name: 'morning-report' })).error).toMatchObject({ data: { kind: 'not_found' } });
    await expect.poll(() => page.getByRole('row', { name: /morning-report/ }).count()).toBe(1);
    expect(await page.getByRole('row', { name: /morning-report\s+admin/ }).count()).toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it('draws billing charts, fleet health and the audit log', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'observability');
    await expect.poll(() => page.locator('.chart canvas').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: 'Fleet health' })
          .getByText(/^Likely root cause/)
          .count(),
      )
      .toBe(1);
    const audit = page.getByRole('region', { name: 'Audit log' });
    await expect.poll(() => audit.locator('tbody tr').count()).toBeGreaterThan(0);
    // A range long before any row was written.
    await audit.getByLabel('From').fill('2000-01-01');
    await audit.getByLabel('To').fill('2000-01-02');
    await audit.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => audit.getByText('No audit rows match.').count()).toBe(1);
    await capture(world, 'observability');
    expect(world.browser.problems).toEqual([]);
  });

  it("drives the gateway's browser: start, status, a screenshot of the current tab, stop", async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'browser');
    await page.getByRole('button', { name: 'Start browser' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Stop browser' }).count(), { timeout: 30_000 }).toBe(1);
    await page.getByRole('button', { name: 'Take screenshot' }).click();
    await expect
      .poll(() => page.getByAltText("Screenshot of the browser's current tab").count(), { timeout: 30_000 })
      .toBe(1);
    await capture(world, 'browser');
    await page.getByRole('button', { name: 'Stop browser' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Start browser' }).count()).toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it('says the browser is not available when the gateway cannot start one', async () => {
    const { page } = world.browser;
    const patch = (executablePath: string) =>
      callRpc(world.gateway.url, world.gateway.tokens.admin, 'config.patch', { browser: { executablePath } });
    expect((await patch('/nonexistent/chromium')).error).toBeUndefined();
    try {
      await openSignedIn(world, 'browser');
      await expect.poll(() => page.getByText(/The browser is not available on this gateway/).count()).toBe(1);
      await capture(world, 'browser-unavailable');
    } finally {
      await patch('/usr/bin/chromium');
    }
    expect(world.browser.problems).toEqual([]);
  });

  it('lists the MCP servers with their state and tools, and tests one', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'mcp');
    const servers = page.getByRole('region', { name: 'Servers' });
    await expect.poll(() => servers.getByRole('row', { name: /files\s+stdio/ }).count()).toBe(1);
    await servers.getByRole('button', { name: 'Test files' }).click();
    await expect
      .poll(() => page.getByText(/^files answered in \d+ ms with echo, slow, pid\.$/).count(), { timeout: 30_000 })
      .toBe(1);
    await servers.getByRole('button', { name: 'Test gone' }).click();
    await expect.poll(() => page.getByText(/^gone failed its test: /).count(), { timeout: 30_000 }).toBe(1);
    const tools = page.getByRole('region', { name: 'Tools' });
    await expect.poll(() => tools.getByText('files__echo').count(), { timeout: 30_000 }).toBe(1);
    await page.reload();
    await expect
      .poll(() => servers.getByRole('row', { name: /gone\s+stdio\s+failed/ }).count(), { timeout: 30_000 })
      .toBe(1);
    await expect.poll(() => servers.getByRole('row', { name: /files\s+stdio\s+ready\s+3/ }).count()).toBe(1);
    await capture(world, 'mcp');
    expect(world.browser.problems).toEqual([]);
  });

  it('switches to the dark theme and keeps it; the skip link is the first stop of the keyboard', async () => {
    const { page } = world.browser;
    await openSignedIn(world, '');
    const background = () => page.evaluate(BODY_BACKGROUND);
    const light = await background();
    await page.getByRole('button', { name: /Change theme/ }).click();
    await expect.poll(() => page.evaluate(THEME_ATTRIBUTE)).toBe('dark');
    expect(await background()).not.toBe(light);
    await page.reload();
    await expect.poll(() => page.evaluate(THEME_ATTRIBUTE)).toBe('dark');
    await capture(world, 'overview-dark');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(FOCUSED_TEXT)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(IS_FOCUS_IN_MAIN)).toBe(true);
    expect(world.browser.problems).toEqual([]);
  });
});
