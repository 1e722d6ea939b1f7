// Dashboard end to end: the Budgets page — a budget set from the form is listed with its scope, window and usage
// bars (and written to config.yaml), edited, refused at the field a bad value names, and deleted; at phone width and
// in the dark theme nothing overflows. After priced turns the methods and bars show what the fake LLM reported, and
// the banner comes once a budget passes its warning point and goes when the budget is deleted.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PHONE, DESKTOP, settleLayout } from '../../support/dashboard-browser.js';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard budgets', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  const listed = async () => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, 'budgets.list', {});
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return (response.result as { budgets: { id: string; maxTokens?: number; action: string }[] }).budgets;
  };
  const fileBudgets = async () =>
    (parseYaml(await readFile(world.gateway.paths.configPath, 'utf8')) as { budgets?: unknown }).budgets;

  it('sets a budget from the page, lists it with its bars, edits it and deletes it', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'budgets');
    await expect.poll(() => page.getByText('No budgets', { exact: false }).count(), { timeout: 10_000 }).toBe(1);

    await page.getByLabel('Budget id').fill('daily-cap');
    await page.getByLabel('Scope', { exact: true }).fill('agent:default');
    await page.getByLabel('Max cost (USD)').fill('5');
    await page.getByLabel('Max tokens').fill('10000');
    await page.getByRole('button', { name: 'Save budget' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved budget daily-cap.' }).count()).toBe(1);

    // The list is fetched again after the save; the card comes when that answer arrives.
    const card = page.getByRole('article', { name: 'Budget daily-cap' });
    await expect.poll(() => card.count()).toBe(1);
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('agent:default');
    expect(text).toContain('day (UTC)');
    expect(text).toContain('block calls');
    const cost = card.getByRole('meter', { name: 'Cost of daily-cap' });
    expect(await cost.getAttribute('aria-valuenow')).toBe('0');
    expect(await cost.getAttribute('aria-valuetext')).toBe('$0.00 used + $0.00 reserved of $5.00 (0%)');
    const tokens = card.getByRole('meter', { name: 'Tokens of daily-cap' });
    expect(await tokens.getAttribute('aria-valuetext')).toBe('0 used + 0 reserved of 10,000 (0%)');
    expect(await listed()).toMatchObject([{ id: 'daily-cap', maxTokens: 10_000, action: 'block' }]);
    expect(await fileBudgets()).toEqual([
      {
        id: 'daily-cap',
        scope: 'agent:default',
        window: 'day',
        maxCostUsd: 5,
        maxTokens: 10_000,
        action: 'block',
        warnAtFraction: 0.8,
      },
    ]);
    // Nothing is past its warning point, so the layout shows no banner.
    expect(await page.getByText('Open Budgets').count()).toBe(0);
    await capture(world, 'budgets');
    await page.emulateMedia({ colorScheme: 'dark' });
    await world.browser.screenshots('budgets-dark');
    await page.setViewportSize(PHONE);
    await settleLayout(page);
    expect(await world.browser.horizontalOverflow(), 'dark theme overflows at phone width').toBe(0);
    await page.setViewportSize(DESKTOP);
    await page.emulateMedia({ colorScheme: 'light' });

    // A bad value is refused at its field and nothing is written.
    await page.getByRole('button', { name: 'Edit daily-cap' }).click();
    expect(await page.getByLabel('Budget id').inputValue()).toBe('daily-cap');
    await page.getByLabel('Max tokens').fill('-3');
    await page.getByRole('button', { name: 'Save budget' }).click();
    const tokensField = page.getByLabel('Max tokens');
    await expect.poll(() => tokensField.getAttribute('aria-invalid')).toBe('true');
    expect(await listed()).toMatchObject([{ id: 'daily-cap', maxTokens: 10_000 }]);

    // Corrected, the action changed to warn, and saved from the keyboard (Enter in a field submits the form).
    await tokensField.fill('20000');
    await page.getByLabel('At the limit').selectOption('warn');
    await tokensField.press('Enter');
    await expect
      .poll(async () => (await listed())[0])
      .toMatchObject({ id: 'daily-cap', maxTokens: 20_000, action: 'warn' });
    await expect.poll(async () => (await card.textContent()) ?? '').toContain('warn only');

    await card.getByRole('button', { name: 'Delete daily-cap' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Deleted budget daily-cap.' }).count()).toBe(1);
    await expect.poll(() => card.count()).toBe(0);
    expect(await listed()).toEqual([]);
    expect(await fileBudgets()).toEqual([]);
    expect(world.browser.problems).toEqual([]);
  });

  it('shows real spend in budgets.list, usage and mine and on the bars; the banner comes past warnAtFraction and goes with budgets.delete', async () => {
    const { page } = world.browser;
    const { url, tokens } = world.gateway;
    const call = async (secret: string, method: string, params: Record<string, unknown> = {}) => {
      const response = await callRpc(url, secret, method, params);
      if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
      return response.result as Record<string, unknown>;
    };
    // fake-model costs $1 per million input tokens and $2 per million output tokens: each turn below $0.002.
    await call(tokens.admin, 'budgets.set', {
      id: 'spend',
      scope: 'agent:default',
      maxCostUsd: 0.006,
      maxTokens: 10_000,
      warnAtFraction: 0.5,
    });
    await call(tokens.admin, 'budgets.set', { id: 'rpc-own', scope: 'token:rpc-client', maxTokens: 1_000_000 });
    await openSignedIn(world, '');
    expect(await page.getByText('Open Budgets').count()).toBe(0);

    for (const turn of [1, 2]) {
      world.llm.script({ text: `answer ${turn}`, usage: { inputTokens: 1_000, outputTokens: 500 } });
      expect(
        await call(tokens.rpc, 'agent.execute', {
          message: `question ${turn}`,
          sessionKey: { tenantId: 'default', userId: 'spender', channelId: 'budget' },
        }),
      ).toMatchObject({ finishReason: 'stop' });
    }
    const spent = { costMicroUsd: 4_000, tokens: 3_000 };
    const zero = { costMicroUsd: 0, tokens: 0 };
    const { budgets } = (await call(tokens.admin, 'budgets.list')) as { budgets: unknown[] };
    expect(budgets).toMatchObject([
      { id: 'spend', used: spent, reserved: zero, state: 'warning', fractions: { cost: 4_000 / 6_000, tokens: 0.3 } },
      { id: 'rpc-own', used: spent, reserved: zero, state: 'ok' },
    ]);
    expect(await call(tokens.admin, 'budgets.usage', { scope: 'agent:default' })).toMatchObject({
      usage: [{ id: 'spend', used: spent }],
    });
    expect(await call(tokens.rpc, 'budgets.mine')).toMatchObject({ budgets: [{ id: 'rpc-own', used: spent }] });

    // The banner came with the budget:warning of the second turn, without a reload.
    const banner = page.locator('.budget-banner');
    await expect.poll(() => banner.count(), { timeout: 10_000 }).toBe(1);
    // Its share is read when the event comes: the settled first turn and the second's reservation, at least half.
    expect(await banner.textContent()).toMatch(/Budget spend \(agent:default\) has used (5\d|6\d)% of its limit\./);
    expect(await banner.textContent()).not.toContain('rpc-own');
    await banner.getByRole('link', { name: 'Open Budgets' }).click();
    const cost = page.getByRole('article', { name: 'Budget spend' }).getByRole('meter', { name: 'Cost of spend' });
    await expect
      .poll(() => cost.getAttribute('aria-valuetext'))
      .toBe('$0.00400 used + $0.00 reserved of $0.00600 (66%)');
    expect(await cost.getAttribute('aria-valuenow')).toBe('67');
    const tokenBar = page
      .getByRole('article', { name: 'Budget spend' })
      .getByRole('meter', { name: 'Tokens of spend' });
    expect(await tokenBar.getAttribute('aria-valuetext')).toBe('3,000 used + 0 reserved of 10,000 (30%)');

    // Deleted by another admin's call, not from this page: the banner goes without a reload.
    await call(tokens.admin, 'budgets.delete', { id: 'spend' });
    await expect.poll(() => banner.count(), { timeout: 10_000 }).toBe(0);
    await call(tokens.admin, 'budgets.delete', { id: 'rpc-own' });
    expect(world.browser.problems).toEqual([]);
  }, 60_000);
});
