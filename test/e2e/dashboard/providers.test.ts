// Dashboard end to end: the Providers page adds a provider pointing at the fake LLM (its key write-only), tests it,
// keeps the key on an edit that leaves the field empty; an agent created with the pickers only (provider, model, a
// tool and a skill from tools.list) answers agent.execute through that provider with that key.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

const KEY = 'sk-dashboard-provider-0123456789';

describe('dashboard providers and agent pickers', () => {
  let world: DashboardWorld;
  let skillsDir = '';
  beforeAll(async () => {
    skillsDir = await mkdtemp(join(tmpdir(), 'dashboard-providers-skills-'));
    await mkdir(join(skillsDir, 'release-notes'));
    await writeFile(
      join(skillsDir, 'release-notes', 'SKILL.md'),
      '---\nname: release-notes\ndescription: Writes release notes from merged changes\n---\n# Release notes\n',
    );
    world = await startDashboardWorld({ skills: { dirs: [skillsDir], watch: false } });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await rm(skillsDir, { recursive: true, force: true });
  });

  const admin = (method: string, params?: unknown) =>
    callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);

  it('adds a provider from the page, tests it, and keeps its key on an edit with the key field empty', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'providers');
    await page.getByRole('button', { name: 'Add provider' }).click();
    const form = page.getByRole('form', { name: 'New provider' });
    await form.getByLabel('Name', { exact: true }).fill('local');
    await form.getByLabel('Type', { exact: true }).selectOption('openai-compatible');
    await form.getByLabel('Base URL', { exact: true }).fill(world.llm.baseUrl);
    await form.getByLabel('API key', { exact: true }).fill(KEY);
    await form.getByLabel('Models', { exact: true }).fill('fake-model');
    expect(await form.getByLabel('API key', { exact: true }).getAttribute('type')).toBe('password');
    await form.getByRole('button', { name: 'Add provider' }).click();
    await expect.poll(() => page.getByText('Provider local added.').count()).toBe(1);
    const card = page.getByRole('region', { name: 'local', exact: true });
    await expect.poll(() => card.count()).toBe(1);
    await expect.poll(() => card.getByText('stored', { exact: true }).count()).toBe(1);

    // Test: a real round trip to the fake LLM, with the key.
    const before = world.llm.chatRequests().length;
    await card.getByRole('button', { name: 'Test', exact: true }).click();
    const result = card.getByRole('status');
    await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/^ok \d/);
    const tested = world.llm.chatRequests().slice(before);
    expect(tested.map((request) => request.headers.authorization)).toContain(`Bearer ${KEY}`);
    await capture(world, 'providers');

    // Edit with the key field left empty: the field says the key is stored, and it stays.
    await card.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('form', { name: 'Edit provider local' });
    const keyField = edit.getByLabel('API key', { exact: true });
    expect(await keyField.inputValue()).toBe('');
    expect(await keyField.getAttribute('placeholder')).toBe('stored — leave empty to keep');
    await edit.getByLabel('Timeout (ms)', { exact: true }).fill('30000');
    await capture(world, 'providers-edit');
    await edit.getByRole('button', { name: 'Save provider' }).click();
    await expect.poll(() => page.getByText('Provider local saved.').count()).toBe(1);
    const listed = (await admin('providers.list')).result as {
      providers: { name: string; timeoutMs: number; secrets: { apiKey: { isSet: boolean } } }[];
    };
    expect(listed.providers.find((provider) => provider.name === 'local')).toMatchObject({
      timeoutMs: 30_000,
      secrets: { apiKey: { isSet: true } },
    });
    expect(await page.content()).not.toContain(KEY);
    expect(world.browser.problems).toEqual([]);
  });

  it('creates an agent with the pickers only and runs a turn through the new provider', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'agents');
    await page.getByRole('button', { name: 'New agent' }).click();
    const form = page.getByRole('form', { name: 'New agent' });
    await form.getByLabel('Name', { exact: true }).fill('Picked');
    await expect
      .poll(() => form.getByLabel('Provider', { exact: true }).locator('option').allTextContents())
      .toContain('local');
    await form.getByLabel('Provider', { exact: true }).selectOption('local');
    await form.getByLabel('Model', { exact: true }).selectOption('fake-model');
    const tools = form.getByRole('group', { name: 'Tools' });
    // The whole server is offered at once (mcp.servers.list), before tools.list has started the fixture.
    await expect
      .poll(() => tools.getByRole('checkbox', { name: 'mcp:files', exact: true }).count(), { timeout: 15_000 })
      .toBe(1);
    await tools.getByRole('checkbox', { name: 'current_time', exact: true }).check();
    const skills = form.getByRole('group', { name: 'Skills' });
    await skills.getByRole('checkbox', { name: 'release-notes', exact: true }).check();
    await form.getByLabel('System prompt', { exact: true }).fill('You answer briefly. '.repeat(20));
    await capture(world, 'agents-pickers');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await expect.poll(() => page.getByText('Agent picked created.').count()).toBe(1);
    const card = page.getByRole('region', { name: 'Picked (picked)' });
    await expect.poll(() => card.getByText('current_time', { exact: true }).count()).toBe(1);
    await expect.poll(() => card.getByText('release-notes', { exact: true }).count()).toBe(1);
    // The long prompt is shortened on the card, whole behind its disclosure.
    await expect.poll(() => card.locator('details summary').count()).toBe(1);
    const guarded = page.getByRole('region', { name: 'Guarded (guarded)' });
    await expect.poll(() => guarded.getByText('current_time', { exact: true }).count()).toBe(2);
    await expect.poll(() => page.getByRole('button', { name: 'Download agents as CSV' }).count()).toBe(1);
    await capture(world, 'agents-cards');

    expect((await admin('agents.get', { agentId: 'picked' })).result).toMatchObject({
      provider: 'local',
      model: 'fake-model',
      tools: ['current_time'],
      skills: ['release-notes'],
    });
    const before = world.llm.chatRequests().length;
    const turn = await admin('agent.execute', { agentId: 'picked', message: 'hello picker' });
    expect(turn.result).toMatchObject({ response: 'Echo: hello picker' });
    expect(world.llm.chatRequests().slice(before)[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(world.browser.problems).toEqual([]);
  });
});
