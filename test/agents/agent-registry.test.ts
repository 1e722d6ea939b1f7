// The agent registry: reads agents from the live config and changes them through the ConfigStore, one commit each.
import { createEventBus, type BusEvent } from '../../src/events/index.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  agentIdFromName,
  createAgentRegistry,
  type AgentChange,
  type ManagedAgentRegistry,
  type ProviderCheck,
} from '../../src/agents/agent-registry.js';
import { createConfigStore, createGitHistory, type ConfigStore } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';

const CONFIG_TEXT = `gateway:
  tokens:
    - { id: admin, secret: admin-secret-0123456789abcdefghijklmnop, scopes: ["*"] }
providers:
  local:
    type: openai-compatible
    baseUrl: http://127.0.0.1:11434/v1
  cloud:
    type: openai
    apiKey: \${CLOUD_KEY}
agents:
  default:
    name: Assistant # the default agent
    provider: local
    model: llama3.2
    systemPrompt: Be brief.
  helper:
    name: Helper
    suspended: true
`;

let dataDir: string;
let configPath: string;
let events: BusEvent[];
let store: ConfigStore;
let registry: ManagedAgentRegistry;
let checkProvider: ReturnType<typeof vi.fn<ProviderCheck>>;

const fileAgents = async () => parse(await readFile(configPath, 'utf8')).agents;
const commitMessages = () =>
  execFileSync('git', ['-C', dataDir, 'log', '--format=%s'], { encoding: 'utf8' }).trim().split('\n');
const agentEvents = () =>
  events.filter((event) => event.name.startsWith('agent:')).map((event) => ({ name: event.name, ...event.payload }));

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-agents-'));
  configPath = join(dataDir, 'config.yaml');
  await writeFile(configPath, CONFIG_TEXT);
  events = [];
  const log = createLogger({ level: 'silent' });
  const bus = createEventBus({ now: () => 1, log });
  bus.subscribe((event) => events.push(event));
  store = await createConfigStore({
    configPath,
    history: createGitHistory({ dataDir, configPath, env: {} }),
    env: { CLOUD_KEY: 'sk-cloud' },
    log,
    events: bus,
  });
  checkProvider = vi.fn<ProviderCheck>(async () => ({ ok: true }));
  registry = createAgentRegistry({ configStore: store, events: bus, log, checkProvider });
});

afterEach(async () => {
  registry.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('agent registry', () => {
  it('reads agents from the config, with status and the default agent', () => {
    expect(registry.list().map((agent) => agent.id)).toEqual(['default', 'helper']);
    expect(registry.get('default')).toMatchObject({
      id: 'default',
      status: 'active',
      config: { name: 'Assistant', maxSteps: 8 },
    });
    expect(registry.get('helper')?.status).toBe('suspended');
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.defaultAgentId()).toBe('default');
  });

  it('creates an agent with only the given fields, persisted and committed, and announces it', async () => {
    const agent = await registry.create(undefined, {
      name: 'Research Bot',
      provider: 'cloud',
      model: 'gpt-4o',
      maxSteps: 4,
    });
    expect(agent).toMatchObject({
      id: 'research-bot',
      status: 'active',
      config: { name: 'Research Bot', maxSteps: 4, tools: [] },
    });
    expect((await fileAgents())['research-bot']).toEqual({
      name: 'Research Bot',
      provider: 'cloud',
      model: 'gpt-4o',
      maxSteps: 4,
    });
    expect(commitMessages()[0]).toBe('agents.create research-bot');
    expect(agentEvents()).toEqual([{ name: 'agent:hot_added', agentId: 'research-bot', change: 'added' }]);
    expect(await readFile(configPath, 'utf8')).toContain('name: Assistant # the default agent');
  });

  it('refuses a taken id, an unknown provider and an invalid field, changing nothing', async () => {
    await expect(registry.create('default', { name: 'Again' })).rejects.toMatchObject({ kind: 'conflict' });
    await expect(registry.create(undefined, { name: 'Assistant 2', provider: 'nowhere' })).rejects.toMatchObject({
      kind: 'invalid_params',
      message: expect.stringContaining("agents.assistant-2.provider: unknown provider 'nowhere'"),
    });
    await expect(registry.create('x', { name: 'X', maxSteps: 0 })).rejects.toMatchObject({
      message: expect.stringContaining('agents.x.maxSteps:'),
    });
    await expect(registry.create('bad id', { name: 'X' })).rejects.toMatchObject({ kind: 'invalid_params' });
    expect(Object.keys(await fileAgents())).toEqual(['default', 'helper']);
    expect(commitMessages()).toEqual(['initial config']);
  });

  it('updates only the supplied fields, live', async () => {
    const updated = await registry.update('default', { model: 'llama3.3', budget: { maxTokensPerTurn: 1000 } });
    expect(updated.config).toMatchObject({
      name: 'Assistant',
      provider: 'local',
      model: 'llama3.3',
      systemPrompt: 'Be brief.',
      budget: { maxTokensPerTurn: 1000 },
    });
    expect(registry.get('default')?.config.model).toBe('llama3.3');
    expect((await fileAgents()).default).toEqual({
      name: 'Assistant',
      provider: 'local',
      model: 'llama3.3',
      systemPrompt: 'Be brief.',
      budget: { maxTokensPerTurn: 1000 },
    });
    expect(commitMessages()[0]).toBe('agents.update default: model, budget');
    expect(agentEvents()).toEqual([{ name: 'agent:hot_added', agentId: 'default', change: 'updated' }]);
    expect(checkProvider).not.toHaveBeenCalled();
    await expect(registry.update('default', { provider: 'nowhere' })).rejects.toMatchObject({ kind: 'invalid_params' });
    await expect(registry.update('missing', { model: 'x' })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('dry-runs an update: validates, checks the new provider, persists nothing', async () => {
    const before = await readFile(configPath, 'utf8');
    const valid = await registry.dryRunUpdate('default', { provider: 'cloud', model: 'gpt-4o' });
    expect(valid).toMatchObject({
      dryRun: true,
      valid: true,
      config: { provider: 'cloud', model: 'gpt-4o', name: 'Assistant' },
    });
    expect(checkProvider).toHaveBeenCalledWith('cloud', expect.objectContaining({ config: expect.any(Object) }));

    checkProvider.mockResolvedValueOnce({ ok: false, error: 'invalid api key' });
    const refused = await registry.dryRunUpdate('default', { provider: 'cloud' });
    expect(refused).toMatchObject({
      valid: false,
      errors: ["agents.default.provider: credential check failed for 'cloud': invalid api key"],
    });

    const invalid = await registry.dryRunUpdate('default', { maxSteps: 500 });
    expect(invalid.valid).toBe(false);
    if (!invalid.valid) expect(invalid.errors[0]).toMatch(/^agents\.default\.maxSteps:/);

    checkProvider.mockClear();
    await registry.dryRunUpdate('default', { provider: 'local', model: 'other' });
    expect(checkProvider).not.toHaveBeenCalled();
    expect(await readFile(configPath, 'utf8')).toBe(before);
    expect(registry.get('default')?.config.provider).toBe('local');
    expect(commitMessages()).toEqual(['initial config']);
    expect(agentEvents()).toEqual([]);
  });

  it('checks credentials statically when no check is injected', async () => {
    const log = createLogger({ level: 'silent' });
    const plain = createAgentRegistry({ configStore: store, events: createEventBus({ now: () => 1, log }), log });
    try {
      expect(await plain.dryRunUpdate('default', { provider: 'cloud' })).toMatchObject({ valid: true });
      await store.patch({ providers: { cloud: { apiKey: '' } } });
      expect(await plain.dryRunUpdate('default', { provider: 'cloud' })).toMatchObject({
        valid: false,
        errors: [expect.stringContaining('apiKey is empty')],
      });
    } finally {
      plain.close();
    }
  });

  it('deletes an agent: gone from the registry, the file and announced as removed', async () => {
    await registry.delete('helper');
    expect(registry.get('helper')).toBeUndefined();
    expect(Object.keys(await fileAgents())).toEqual(['default']);
    expect(commitMessages()[0]).toBe('agents.delete helper');
    expect(agentEvents()).toEqual([{ name: 'agent:hot_removed', agentId: 'helper', change: 'removed' }]);
    await expect(registry.delete('helper')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('suspends and resumes, persisted as suspended: true/false', async () => {
    const changes: AgentChange[][] = [];
    registry.onChange((batch) => changes.push(batch));
    expect((await registry.suspend('default')).status).toBe('suspended');
    expect((await fileAgents()).default.suspended).toBe(true);
    expect((await registry.resume('default')).status).toBe('active');
    expect((await fileAgents()).default.suspended).toBe(false);
    await registry.resume('default');
    expect(commitMessages().slice(0, 2)).toEqual(['agents.resume default', 'agents.suspend default']);
    expect(agentEvents()).toEqual([
      { name: 'agent:hot_removed', agentId: 'default', change: 'suspended' },
      { name: 'agent:hot_added', agentId: 'default', change: 'resumed' },
    ]);
    expect(changes).toEqual([
      [{ agentId: 'default', change: 'suspended' }],
      [{ agentId: 'default', change: 'resumed' }],
    ]);
  });

  it('follows agent changes made through config.* and rollbacks', async () => {
    const [initial] = await store.history.history(1);
    await store.patch({ agents: { extra: { name: 'Extra' } } });
    expect(registry.get('extra')?.config.name).toBe('Extra');
    await store.rollback(initial?.sha ?? '');
    expect(registry.get('extra')).toBeUndefined();
    expect(agentEvents()).toEqual([
      { name: 'agent:hot_added', agentId: 'extra', change: 'added' },
      { name: 'agent:hot_removed', agentId: 'extra', change: 'removed' },
    ]);
  });

  it('derives ids from names', () => {
    expect(agentIdFromName('Research Bot #2')).toBe('research-bot-2');
    expect(agentIdFromName('Café Crème')).toBe('cafe-creme');
    expect(agentIdFromName('!!!')).toBe('agent');
  });
});
