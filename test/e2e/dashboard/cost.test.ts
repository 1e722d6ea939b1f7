// Dashboard end to end: the Cost page — after priced turns (fake-model: $1 per million input tokens, $2 per million
// output) it shows spend in dollars per agent, per owner token and per provider/model, and downloads the table as CSV
// with a comma-and-quote cell quoted and a formula-like token id made inert; the budgets are listed with their usage.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

/** A model id a spreadsheet must see as one cell: a comma and quotes. */
const ODD_MODEL = 'fake-model, "v2"';
/** A token id a spreadsheet would run as a formula (=-1-2). */
const FORMULA_TOKEN = '-1-2';

describe('dashboard cost', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld({
      extraAgents: { odd: { name: 'Odd', provider: 'fake', model: ODD_MODEL } },
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  const call = async (secret: string, method: string, params: Record<string, unknown> = {}) => {
    const response = await callRpc(world.gateway.url, secret, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  let turns = 0;
  /** One priced turn in a session of its own (a session belongs to the token that opened it). */
  const turn = async (secret: string, agentId: string, inputTokens: number, outputTokens: number) => {
    turns += 1;
    world.llm.script({ text: 'priced answer', usage: { inputTokens, outputTokens } });
    expect(
      await call(secret, 'agent.execute', {
        agentId,
        message: 'question',
        sessionKey: { tenantId: 'default', userId: `payer-${turns}`, channelId: 'cost' },
      }),
    ).toMatchObject({ finishReason: 'stop' });
  };
  /** The cells of the table named `name`, header first. */
  const tableCells = (name: string) =>
    world.browser.page
      .getByRole('table', { name })
      .locator('tr')
      .evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
      );

  it('shows spend per agent, token and model in dollars and downloads the table as inert CSV', async () => {
    const { page } = world.browser;
    const { tokens } = world.gateway;
    const { secret } = (await call(tokens.admin, 'tokens.create', { id: FORMULA_TOKEN, scopes: ['rpc'] })) as {
      secret: string;
    };
    await call(tokens.admin, 'budgets.set', { id: 'daily', scope: 'agent:default', maxCostUsd: 1 });
    await turn(tokens.rpc, 'default', 1_000, 500);
    await turn(secret, 'default', 2_000, 1_000);
    await turn(secret, 'odd', 1_000, 0);

    await openSignedIn(world, 'cost');
    await expect.poll(() => page.getByRole('table', { name: 'Cost by agent' }).count(), { timeout: 10_000 }).toBe(1);
    expect(await tableCells('Cost by agent')).toEqual([
      ['Agent', 'Cost (USD)', 'Input tokens', 'Output tokens', 'Calls'],
      ['default', '$0.00600', '3,000', '1,500', '2'],
      ['odd', '$0.00', '1,000', '0', '1'],
    ]);
    // The budget counts the default agent's two turns; its page is a link away.
    expect(await tableCells('Budgets and their usage')).toEqual([
      ['Budget', 'Scope', 'Cost used', 'Tokens used', 'State'],
      ['daily', 'agent:default', '$0.00600 of $1.00', '4,500', 'ok'],
    ]);
    expect(await page.getByRole('link', { name: 'Manage budgets' }).getAttribute('href')).toBe('/app/budgets');
    await capture(world, 'cost');
    await page.emulateMedia({ colorScheme: 'dark' });
    await capture(world, 'cost-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByRole('button', { name: 'By token' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Cost by token' }).count(), { timeout: 10_000 }).toBe(1);
    expect(await tableCells('Cost by token')).toEqual([
      ['Token', 'Cost (USD)', 'Input tokens', 'Output tokens', 'Calls'],
      [FORMULA_TOKEN, '$0.00400', '3,000', '1,000', '2'],
      ['rpc-client', '$0.00200', '1,000', '500', '1'],
    ]);
    const tokenCsv = page.waitForEvent('download');
    await page.getByRole('button', { name: /^Download cost-by-token-24h as CSV$/ }).click();
    const tokenFile = await tokenCsv;
    expect(tokenFile.suggestedFilename()).toMatch(/^cost-by-token-24h-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(await readFile(await tokenFile.path(), 'utf8')).toBe(
      [
        'Token,Cost (USD),Input tokens,Output tokens,Calls',
        `'${FORMULA_TOKEN},0.004,3000,1000,2`,
        'rpc-client,0.002,1000,500,1',
        '',
      ].join('\r\n'),
    );

    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByRole('button', { name: 'By model' }).click();
    await expect
      .poll(() => page.getByRole('table', { name: 'Cost by provider/model' }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(await tableCells('Cost by provider/model')).toEqual([
      ['Provider/model', 'Cost (USD)', 'Input tokens', 'Output tokens', 'Calls'],
      ['fake/fake-model', '$0.00600', '3,000', '1,500', '2'],
      [`fake/${ODD_MODEL}`, '$0.00', '1,000', '0', '1'],
    ]);
    const modelCsv = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download cost-by-model-7d as CSV' }).click();
    expect(await readFile(await (await modelCsv).path(), 'utf8')).toBe(
      [
        'Provider/model,Cost (USD),Input tokens,Output tokens,Calls',
        'fake/fake-model,0.006,3000,1500,2',
        '"fake/fake-model, ""v2""",0,1000,0,1',
        '',
      ].join('\r\n'),
    );
    // The chart's table has 7 daily buckets, today (with the spend) last.
    const chartRows = page.locator('figure', { has: page.getByText('Cost over the last 7 days: data table') });
    await expect.poll(() => chartRows.locator('tbody tr').count()).toBe(7);
    expect(await chartRows.locator('tbody tr').last().locator('td').last().textContent()).not.toBe('0');
    expect(world.browser.problems).toEqual([]);
  });
});
