// providers.* and tools.list through a started gateway: a provider added, edited and deleted as config commits naming
// the token, its API key write-only (never in an answer, config.yaml, the history or the logs; "***" keeps it),
// delete refused while an agent uses it; tools.list answering built-in tools, an MCP fixture's tools and a skill.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { callRpc } from '../support/http-client.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { captureLogs, type LogCapture } from '../support/log-capture.js';
import { stdioFixture } from '../support/mcp-gateway.js';

const KEY = 'sk-provider-admin-0123456789-secret';
const NEW_KEY = 'sk-provider-admin-replaced-9876543210';

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: { kind?: string; param?: string } };
}

interface ListedProvider {
  name: string;
  type: string;
  baseUrl: string | null;
  models: { id: string }[];
  secrets: { apiKey: { isSet: boolean } };
  usedBy: string[];
}

describe('providers.* and tools.list', () => {
  let gateway: Harness;
  let logs: LogCapture;
  let skillsDir = '';
  const answers: string[] = [];

  beforeAll(async () => {
    skillsDir = await mkdtemp(join(tmpdir(), 'provider-admin-skills-'));
    await mkdir(join(skillsDir, 'release-notes'));
    await writeFile(
      join(skillsDir, 'release-notes', 'SKILL.md'),
      '---\nname: release-notes\ndescription: Writes release notes from merged changes\n---\n# Release notes\n',
    );
    logs = captureLogs();
    gateway = await startGateway({
      providers: {
        main: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', models: [{ id: 'main-model' }] },
      },
      agents: { default: { name: 'Default', provider: 'main', model: 'main-model' } },
      mcp: { servers: { fixture: stdioFixture() } },
      skills: { dirs: [skillsDir], watch: false },
      log: logs.log,
    });
    // The history is readied after start; until its first commit, a change would be folded into "initial config".
    await callRpc(gateway.url, gateway.tokens.admin, 'config.history', {});
  });
  afterAll(async () => {
    await gateway?.close();
    await rm(skillsDir, { recursive: true, force: true });
  });

  const admin = async (method: string, params?: unknown): Promise<RpcAnswer> => {
    const answer = (await callRpc(gateway.url, gateway.tokens.admin, method, params)) as RpcAnswer;
    answers.push(JSON.stringify(answer));
    return answer;
  };
  const listed = async (): Promise<ListedProvider[]> =>
    ((await admin('providers.list')).result as { providers: ListedProvider[] }).providers;
  const lastCommit = async () =>
    ((await admin('config.history', { limit: 1 })).result as { entries: { message: string }[] }).entries[0]?.message;
  const configText = () => readFile(gateway.paths.configPath, 'utf8');

  it('adds a provider with a key kept in secrets.yaml, lists it without the key, live at once', async () => {
    const saved = await admin('providers.save', {
      name: 'local',
      type: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: KEY,
      models: ['small', 'large'],
    });
    expect(saved.error).toBeUndefined();
    expect(saved.result).toMatchObject({
      created: true,
      provider: { name: 'local', secrets: { apiKey: { isSet: true } }, models: [{ id: 'small' }, { id: 'large' }] },
    });
    const local = (await listed()).find((provider) => provider.name === 'local');
    expect(local).toMatchObject({ type: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', usedBy: [] });
    expect(await lastCommit()).toBe('providers.save (add) local by admin');
    // Live: the router knows it at once.
    expect((await admin('models.list_providers')).result).toMatchObject({ providers: ['main', 'local'] });
    // config.yaml holds a reference; the value sits in secrets.yaml only.
    const file = parseYaml(await configText()) as { providers: Record<string, { apiKey?: string }> };
    expect(file.providers.local?.apiKey).toMatch(/^\$\{secret:.+\}$/);
    expect(await readFile(join(gateway.dataDir, 'secrets.yaml'), 'utf8')).toContain(KEY);
  });

  it('edits it: "***" or no key keeps the stored key, a new key replaces it, a model list replaces the models', async () => {
    const before = await configText();
    const kept = await admin('providers.save', {
      name: 'local',
      type: 'openai-compatible',
      apiKey: '***',
      models: ['small'],
      timeoutMs: 5_000,
    });
    expect(kept.error).toBeUndefined();
    expect(kept.result).toMatchObject({ created: false, provider: { timeoutMs: 5_000, models: [{ id: 'small' }] } });
    const reference = (parseYaml(await configText()) as { providers: Record<string, { apiKey?: string }> }).providers
      .local?.apiKey;
    expect(reference).toBe(
      (parseYaml(before) as { providers: Record<string, { apiKey?: string }> }).providers.local?.apiKey,
    );
    expect(await lastCommit()).toBe('providers.save (edit) local by admin');

    const replaced = await admin('providers.save', { name: 'local', type: 'openai-compatible', apiKey: NEW_KEY });
    expect(replaced.error).toBeUndefined();
    expect(await readFile(join(gateway.dataDir, 'secrets.yaml'), 'utf8')).toContain(NEW_KEY);
    // Fields not given keep their value.
    expect((await listed()).find((provider) => provider.name === 'local')).toMatchObject({
      baseUrl: 'http://127.0.0.1:9/v1',
      models: [{ id: 'small' }],
      secrets: { apiKey: { isSet: true } },
    });
  });

  it('refuses an invalid provider naming the field, the config unchanged', async () => {
    const before = await configText();
    const bad = await admin('providers.save', { name: 'local', type: 'openai-compatible', baseUrl: 'not a url' });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.data?.param).toBe('baseUrl');
    const proto = await admin('providers.save', { name: '__proto__', type: 'openai' });
    expect(proto.error?.code).toBe(-32602);
    expect(await configText()).toBe(before);
  });

  it('refuses to delete a provider an agent uses, naming the agent; deletes an unused one', async () => {
    const refused = await admin('providers.delete', { name: 'main' });
    expect(refused.error?.data?.kind).toBe('conflict');
    expect(refused.error?.message).toContain("agent 'default'");
    expect((await listed()).find((provider) => provider.name === 'main')?.usedBy).toEqual(["agent 'default'"]);

    const deleted = await admin('providers.delete', { name: 'local' });
    expect(deleted.error).toBeUndefined();
    expect((await listed()).map((provider) => provider.name)).toEqual(['main']);
    expect(await lastCommit()).toBe('providers.delete local by admin');
    expect((await admin('providers.delete', { name: 'local' })).error?.data?.kind).toBe('not_found');
  });

  it('lists built-in tools, each MCP server whole and its tools, and the loaded skill', async () => {
    // tools.list waits at most 2 s for a server still connecting; the stdio fixture may take longer to start on a
    // loaded machine, so the listing is read once it is ready.
    await admin('tools.list');
    const fixtureState = async () =>
      ((await admin('mcp.servers.list')).result as { servers: { name: string; state: string }[] }).servers.find(
        (server) => server.name === 'fixture',
      )?.state;
    await expect.poll(fixtureState, { timeout: 30_000 }).toBe('ready');
    const answer = await admin('tools.list');
    expect(answer.error).toBeUndefined();
    const tools = (answer.result as { tools: { name: string; source: string; description: string }[] }).tools;
    expect(tools.filter((tool) => tool.source === 'builtin').length).toBeGreaterThan(0);
    expect(tools).toContainEqual({
      name: 'mcp:fixture',
      source: 'mcp:fixture',
      description: 'Every tool of MCP server fixture',
    });
    expect(tools).toContainEqual({
      name: 'mcp:fixture/echo',
      source: 'mcp:fixture',
      description: expect.any(String) as string,
    });
    expect(tools).toContainEqual({
      name: 'release-notes',
      source: 'skill',
      description: 'Writes release notes from merged changes',
    });
    for (const tool of tools.filter((entry) => entry.source === 'builtin'))
      expect(tool.description.length).toBeGreaterThan(0);
  });

  it('is admin only', async () => {
    for (const method of ['providers.list', 'providers.save', 'providers.delete', 'tools.list']) {
      const answer = (await callRpc(gateway.url, gateway.tokens.rpc, method, {})) as RpcAnswer;
      expect(answer.error?.code).toBe(-32603);
    }
  });

  it('never shows a key in an answer, config.yaml, its history or the logs', async () => {
    const history = (await admin('config.history', { limit: 50 })).result as { entries: { sha: string }[] };
    const diffs = await Promise.all(
      history.entries.map(async (entry) => JSON.stringify(await admin('config.diff', { sha: entry.sha }))),
    );
    const seen = [answers.join('\n'), await configText(), diffs.join('\n'), logs.lines.join('\n')].join('\n');
    for (const key of [KEY, NEW_KEY]) expect(seen).not.toContain(key);
    expect(logs.lines.length).toBeGreaterThan(0);
  });
});
