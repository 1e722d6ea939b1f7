// Dashboard end to end: the 24-hour token charts end at the current hour, so just after midnight today's traffic is
// at the right edge (not at the left with 23 empty "future" hours after it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn, startDashboardWorld, capture, type DashboardWorld } from './dashboard-fixture.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The latest 00:55 UTC before now: the gateway and the page both believe it is five to one in the morning. */
const realStart = Date.now();
const startOfDay = realStart - (realStart % DAY_MS);
const fiveToOne = startOfDay + 55 * 60_000 - (startOfDay + 55 * 60_000 > realStart ? DAY_MS : 0);
const clock = () => fiveToOne + (Date.now() - realStart);

function hourLabel(epochMs: number): string {
  const date = new Date(epochMs);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

describe('dashboard 24-hour charts', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld({ app: { now: clock } });
    await world.browser.page.clock.setFixedTime(fiveToOne);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  /** The rows of the data table under the chart titled `title`: [hour label, tokens]. */
  async function tableRows(title: string): Promise<string[][]> {
    const { page } = world.browser;
    const figure = page.locator('figure', { has: page.getByText(`${title}: data table`) });
    await expect.poll(() => figure.locator('tbody tr').count(), { timeout: 10_000 }).toBe(24);
    return figure
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));
  }

  it("puts the current hour's tokens at the right edge of the overview and observability charts", async () => {
    world.llm.script({ text: 'Just after midnight.' });
    const reply = await fetch(`${world.gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Hello', sessionKey: 'default:ops:dashboard:midnight' }),
    });
    expect(reply.status).toBe(200);
    const currentHour = fiveToOne - (fiveToOne % HOUR_MS);
    const expectedLabels = Array.from({ length: 24 }, (_, index) => hourLabel(currentHour - (23 - index) * HOUR_MS));
    for (const page of ['', 'observability']) {
      await openSignedIn(world, page);
      const rows = await tableRows('Tokens per hour');
      expect(rows.map((row) => row[0])).toEqual(expectedLabels);
      expect(Number((rows[23]?.[1] ?? '0').replace(/\D/g, ''))).toBeGreaterThan(0);
      expect(rows.slice(0, 23).every((row) => row[1] === '0')).toBe(true);
    }
    await capture(world, 'observability-midnight');
    expect(world.browser.problems).toEqual([]);
  });
});
