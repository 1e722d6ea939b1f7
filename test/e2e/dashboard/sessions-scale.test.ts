// Dashboard end to end at scale: 100,000 sessions in the store, and the Sessions page shows one server page of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteSessionPort, openDatabase } from '../../../src/store/sqlite/index.js';
import { openSignedIn, capture, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

const SESSIONS = 100_000;
const T0 = Date.UTC(2026, 0, 1);
/** Every tenth session belongs to the guarded agent. */
const keyOf = (index: number) => `default:user${index}:scale`;

describe('dashboard sessions page with 100,000 sessions', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld();
    // A second connection to the gateway's database, through the session port, in one transaction.
    const db = openDatabase({ path: world.gateway.paths.databasePath });
    try {
      const port = createSqliteSessionPort(db);
      const writes: Promise<unknown>[] = [];
      db.transaction(() => {
        for (let index = 0; index < SESSIONS; index += 1) {
          writes.push(
            port.ensure({
              sessionKey: keyOf(index),
              agentId: index % 10 === 0 ? 'guarded' : 'default',
              tenantId: 'default',
              kind: 'dm',
              createdAt: T0 + index * 1000,
              metadata: {},
              ownerId: 'admin',
            }),
          );
        }
      })();
      await Promise.all(writes);
    } finally {
      db.close();
    }
  }, 180_000);
  afterAll(async () => {
    await world?.close();
  });

  it('shows the newest page first, pages forward and back, and filters by agent on the server', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'sessions');
    const rows = page.locator('table tbody tr');
    const firstKey = () => rows.first().locator('td').first().textContent();
    await expect.poll(firstKey, { timeout: 10_000 }).toBe(keyOf(SESSIONS - 1));
    expect(await rows.count()).toBe(50);
    await capture(world, 'sessions-100k');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(firstKey).toBe(keyOf(SESSIONS - 51));
    expect(await rows.last().locator('td').first().textContent()).toBe(keyOf(SESSIONS - 100));
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(firstKey).toBe(keyOf(SESSIONS - 1));
    await page.getByLabel('Agent', { exact: true }).selectOption('guarded');
    await expect.poll(firstKey).toBe(keyOf(SESSIONS - 10));
    expect(await rows.nth(1).locator('td').first().textContent()).toBe(keyOf(SESSIONS - 20));
    expect(new URL(page.url()).searchParams.get('agent')).toBe('guarded');
    expect(world.browser.problems).toEqual([]);
  });
});
