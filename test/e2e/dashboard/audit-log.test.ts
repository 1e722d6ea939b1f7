// Dashboard end to end: the audit log on the Observability page — no rows of the dashboard's own reads, filters picked
// from the values the log holds (obs.audit.facets), a date range, and "Older" walking the server's cursor so that
// every row of a burst of calls (several in one millisecond) shows exactly once, in order; the table downloads as CSV.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRpc, callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

interface AuditRow {
  id: string;
  ts: number;
  action: string;
  outcome: string;
}

/** `YYYY-MM-DD` of the local day `days` from today (what a date input holds). */
function localDay(days = 0): string {
  const day = new Date();
  day.setDate(day.getDate() + days);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

describe('dashboard audit log', () => {
  let world: DashboardWorld;
  /** The denied rows of the burst, newest first, as the server lists them. */
  let denied: AuditRow[];
  beforeAll(async () => {
    world = await startDashboardWorld();
    const { gateway } = world;
    // Three batches of 40 admin calls by an rpc token (a batch holds at most 50): each call is refused and audited as
    // denied, many within one millisecond.
    for (let batch = 0; batch < 3; batch += 1) {
      const calls = Array.from({ length: 40 }, (_, index) => ({
        jsonrpc: '2.0',
        id: index + 1,
        method: 'config.set',
        params: { section: 'obs', key: 'retentionDays', value: index },
      }));
      const answered = await postRpc(gateway.url, calls, gateway.tokens.rpc);
      expect(answered.body).toHaveLength(40);
    }
    // One audited change by the admin, so the log holds an "ok" outcome beside the denials.
    expect(
      await callRpc(gateway.url, gateway.tokens.admin, 'config.set', {
        section: 'obs',
        key: 'retentionDays',
        value: 5,
      }),
    ).toHaveProperty('result.ok', true);
    const listed = await callRpc(gateway.url, gateway.tokens.admin, 'obs.audit.query', {
      outcome: 'denied',
      limit: 1000,
    });
    denied = (listed.result as { rows: AuditRow[] }).rows;
    expect(denied).toHaveLength(120);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('shows no read rows, filters by a picked outcome and a date range, and walks older rows by cursor', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'observability');
    const audit = page.getByRole('region', { name: 'Audit log' });
    const rowIds = () =>
      audit.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-row-id')));
    await expect.poll(() => audit.locator('tbody tr').count(), { timeout: 10_000 }).toBe(50);
    // The dashboard read gateway.status, obs.* and config.* to draw this page: none of those reads is in the log.
    const actions = await audit.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(actions.filter((action) => action !== 'config.set')).toEqual([]);

    // The dropdowns offer what the log holds.
    const outcome = audit.getByLabel('Outcome');
    await expect.poll(() => outcome.locator('option').allTextContents()).toEqual(['All', 'denied', 'ok']);
    expect(await audit.getByLabel('Kind').locator('option').allTextContents()).toEqual(['All', 'rpc.call']);
    await outcome.selectOption('ok');
    await audit.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => audit.locator('tbody tr').count()).toBe(1);
    expect(await audit.locator('tbody tr').textContent()).toContain('admin');

    // Older appends the next rows: every denied row once, in the server's order, none skipped at a page boundary.
    await outcome.selectOption('denied');
    await audit.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(rowIds).toEqual(denied.slice(0, 50).map((row) => row.id));
    await audit.getByRole('button', { name: 'Older' }).click();
    await expect.poll(rowIds).toEqual(denied.slice(0, 100).map((row) => row.id));
    await audit.getByRole('button', { name: 'Older' }).click();
    await expect.poll(rowIds).toEqual(denied.map((row) => row.id));
    await expect.poll(() => audit.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);

    // A range that ended yesterday holds none of today's rows; one from today holds them all again.
    await audit.getByLabel('To').fill(localDay(-1));
    await audit.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => audit.getByText('No audit rows match.').count()).toBe(1);
    await audit.getByLabel('To').fill('');
    await audit.getByLabel('From').fill(localDay(0));
    await audit.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(rowIds).toEqual(denied.slice(0, 50).map((row) => row.id));
    // A range that ends before it starts is refused at the field.
    await audit.getByLabel('To').fill(localDay(-1));
    await expect.poll(() => audit.getByLabel('To').getAttribute('aria-invalid')).toBe('true');
    expect(await audit.getByRole('button', { name: 'Filter' }).isDisabled()).toBe(true);
    await audit.getByLabel('To').fill('');

    const download = page.waitForEvent('download');
    await audit.getByRole('button', { name: 'Download audit-log as CSV' }).click();
    expect((await download).suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
    await capture(world, 'audit-log');
    expect(world.browser.problems).toEqual([]);
  });
});
