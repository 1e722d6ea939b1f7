// Dashboard end to end: create an agent that fails validation and fix it; create a token (secret shown once) and revoke it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard agents and tokens', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('shows a validation error next to the field, then creates the agent with pickers only once it is fixed', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'agents');
    await page.getByRole('button', { name: 'New agent' }).click();
    const form = page.getByRole('form', { name: 'New agent' });
    await form.getByLabel('Name', { exact: true }).fill('Helper');
    // Provider, model and tools are picked from what the gateway has configured, never typed.
    await form.getByLabel('Provider', { exact: true }).selectOption('fake');
    await expect
      .poll(() => form.getByLabel('Model', { exact: true }).locator('option').allTextContents())
      .toContain('fake-model');
    await form.getByLabel('Model', { exact: true }).selectOption('fake-model');
    const tools = form.getByRole('group', { name: 'Tools' });
    await expect.poll(() => tools.getByRole('checkbox', { name: 'mcp:files', exact: true }).count()).toBe(1);
    await tools.getByRole('checkbox', { name: 'current_time', exact: true }).check();
    await tools.getByRole('checkbox', { name: 'mcp:files', exact: true }).check();
    await form.getByLabel('Max steps', { exact: true }).fill('0');
    await form.getByRole('button', { name: 'Create agent' }).click();
    const stepsError = page.locator('#new-agent-steps-error');
    await expect.poll(() => stepsError.count()).toBe(1);
    expect(await form.getByLabel('Max steps', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await capture(world, 'agents-validation');
    await form.getByLabel('Max steps', { exact: true }).fill('');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await expect.poll(() => page.getByText('Agent helper created.').count()).toBe(1);
    const card = page.getByRole('region', { name: 'Helper (helper)' });
    await expect.poll(() => card.count()).toBe(1);
    await expect.poll(() => card.getByText('current_time, mcp:files').count()).toBe(1);
    const created = await callRpc(world.gateway.url, world.gateway.tokens.admin, 'agents.get', { agentId: 'helper' });
    expect(created.result).toMatchObject({
      provider: 'fake',
      model: 'fake-model',
      tools: ['current_time', 'mcp:files'],
    });
    await capture(world, 'agents');
    expect(world.browser.problems).toEqual([]);
  });

  it('creates a token whose secret is shown once and works, then revokes it', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'tokens');
    await page.getByLabel('Token id', { exact: true }).fill('ci-bot');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secretElement = page.getByTestId('new-secret');
    await expect.poll(() => secretElement.count()).toBe(1);
    const secret = (await secretElement.textContent()) ?? '';
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const withSecret = () =>
      fetch(`${world.gateway.url}/api/agents`, { headers: { authorization: `Bearer ${secret}` } });
    expect((await withSecret()).status).toBe(200);
    await capture(world, 'tokens-secret');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await expect.poll(() => page.getByRole('cell', { name: 'ci-bot', exact: true }).count()).toBe(1);
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: 'Revoke ci-bot' }).click();
    await expect.poll(() => page.getByText('Token ci-bot revoked.').count()).toBe(1);
    await expect.poll(() => page.getByRole('cell', { name: 'ci-bot', exact: true }).count()).toBe(0);
    expect((await withSecret()).status).toBe(401);
    await capture(world, 'tokens');
    expect(world.browser.problems).toEqual([]);
  });
});
