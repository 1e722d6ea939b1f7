// Dashboard end to end: sign in with a token (kept out of the URL), the overview, and sign out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_TOKEN } from '../../support/dashboard-scripts.js';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard sign in and overview', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('refuses a wrong token, signs in with a good one and keeps it out of the address', async () => {
    const { page } = world.browser;
    await page.goto(`${world.gateway.url}/`);
    await expect.poll(() => page.url()).toMatch(/\/app\/$/);
    await capture(world, 'sign-in');
    await page.getByLabel('Token', { exact: true }).fill('not-a-valid-token-0123456789abcdefghijkl');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByText('This token is not accepted by the gateway.').count()).toBe(1);
    // The refused check is the one expected console error (Chromium logs every 401 response).
    expect(world.browser.problems.sort()).toEqual([
      'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
      'http 401: /api/agents',
    ]);
    world.browser.problems.length = 0;
    await openSignedIn(world);
    expect(page.url()).not.toContain(world.gateway.tokens.admin);
    expect(await page.evaluate(STORED_TOKEN)).toBe(world.gateway.tokens.admin);
    expect(world.browser.problems).toEqual([]);
  });

  it('shows health, version, agents, providers with their breaker and the live event feed', async () => {
    const { page } = world.browser;
    await openSignedIn(world);
    await expect.poll(() => page.getByText('0.0.0-test').count()).toBe(1);
    await expect.poll(() => page.getByText('Guarded').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('region', { name: 'Providers' }).getByText('closed').count()).toBe(1);
    // A turn made elsewhere shows up in the live feed.
    await fetch(`${world.gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello from outside' }),
    });
    await expect
      .poll(() => page.getByRole('region', { name: 'Live events' }).getByText('message:sent').count(), {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
    await capture(world, 'overview');
    expect(world.browser.problems).toEqual([]);
  });

  it('signs out back to the form and forgets the token', async () => {
    const { page } = world.browser;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByLabel('Token', { exact: true }).count()).toBe(1);
    expect(await page.evaluate(STORED_TOKEN)).toBeNull();
  });

  it('goes back to the sign-in form with a notice when its token is rotated elsewhere', async () => {
    const { page } = world.browser;
    const issued = await callRpc(world.gateway.url, world.gateway.tokens.admin, 'tokens.create', {
      id: 'dashboard-operator',
      scopes: ['*'],
    });
    const { secret } = issued.result as { secret: string };
    await openSignedIn(world, 'sessions', secret);
    expect(await page.evaluate(STORED_TOKEN)).toBe(secret);
    await expect.poll(() => page.getByRole('option', { name: 'guarded' }).count()).toBe(1);
    await callRpc(world.gateway.url, world.gateway.tokens.admin, 'tokens.rotate', { id: 'dashboard-operator' });
    await expect.poll(() => page.getByText(/the token was revoked or rotated/).count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByLabel('Token', { exact: true }).count()).toBe(1);
    expect(await page.evaluate(STORED_TOKEN)).toBeNull();
    expect(world.browser.problems).toEqual([]);
  });
});
