// Dashboard end to end: a config section edited as YAML on the Config page — a schema error shown at the field (with
// its line, aria-invalid) and nothing written, Validate without writing, and a save that keeps the comment written in
// the section and every other section of config.yaml byte-identical, committed under the admin token's name.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { TOKEN_IDS } from '../../support/gateway-harness.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard config as YAML', () => {
  let world: DashboardWorld;
  const admin = async (method: string, params: unknown) => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result;
  };
  const commits = async () => ((await admin('config.history', {})) as { entries: { message: string }[] }).entries;
  beforeAll(async () => {
    world = await startDashboardWorld();
    await admin('config.patch', { obs: { retentionDays: 7 } });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('validates, refuses at the field and saves a section written as YAML', async () => {
    const { page } = world.browser;
    const file = () => readFile(world.gateway.paths.configPath, 'utf8');
    await openSignedIn(world, 'config');
    await page.getByLabel('Section', { exact: true }).selectOption('obs');
    await page.getByLabel('Edit as').selectOption('yaml');
    const editor = page.getByLabel(/^Section obs \(YAML/);
    await expect.poll(() => editor.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => editor.inputValue()).toBe('retentionDays: 7\n');

    const before = await file();
    const count = (await commits()).length;
    await editor.fill('# two weeks\nretentionDays: lots\n');
    await page.getByRole('button', { name: 'Save section' }).click();
    const error = page.locator('#config-yaml-obs-error');
    await expect.poll(() => error.textContent()).toMatch(/obs\.retentionDays.*\(line 2\)/);
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    expect((await editor.getAttribute('aria-describedby')) ?? '').toContain('config-yaml-obs-error');
    expect(await file()).toBe(before);
    expect(await commits()).toHaveLength(count);

    await editor.fill('# two weeks (ops ticket 12)\nretentionDays: 14\n');
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect.poll(() => page.getByText('Valid; saving changes obs.').count()).toBe(1);
    expect(await file()).toBe(before);

    await page.getByRole('button', { name: 'Save section' }).click();
    await expect.poll(() => page.getByText('Saved obs.').count()).toBe(1);
    const [head] = before.split(/^obs:\n/m);
    expect(await file()).toBe(`${head}obs:\n  # two weeks (ops ticket 12)\n  retentionDays: 14\n`);
    expect((await commits())[0]?.message).toBe(`config.setSectionYaml by ${TOKEN_IDS.admin}: obs`);
    // The editor is rebuilt from the saved file, comment and all.
    await page.getByLabel('Edit as').selectOption('yaml');
    await expect
      .poll(() => page.getByLabel(/^Section obs \(YAML/).inputValue())
      .toBe('# two weeks (ops ticket 12)\nretentionDays: 14\n');
    await capture(world, 'config-yaml');
    expect(world.browser.problems).toEqual([]);
  });
});
