// agents.* over JSON-RPC: admin only, live changes persisted to config.yaml and git, dry runs persist nothing.
import type { Caller } from '../../src/server/types.js';
import { createEventBus, type BusEvent } from '../../src/events/index.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentRegistry, type ManagedAgentRegistry, type ProviderCheck } from '../../src/agents/agent-registry.js';
import { createConfigStore, createGitHistory } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createDispatcher, createRegistry, type Dispatcher } from '../../src/rpc/index.js';
import { agentMethods } from '../../src/agents/index.js';

const CONFIG_TEXT = `providers:
  local: { type: openai-compatible, baseUrl: "http://127.0.0.1:11434/v1" }
  cloud: { type: anthropic, apiKey: sk-cloud }
agents:
  default:
    name: Assistant
    provider: local
    model: llama3.2
`;

const ADMIN: Caller = { clientId: 'admin', scopes: ['*'] };
const RPC_ONLY: Caller = { clientId: 'rpc-client', scopes: ['rpc'] };
const log = createLogger({ level: 'silent' });

let dataDir: string;
let configPath: string;
let agents: ManagedAgentRegistry;
let dispatcher: Dispatcher;
let methodNames: string[];
let events: BusEvent[];
let checkProvider: ReturnType<typeof vi.fn<ProviderCheck>>;

async function call(method: string, params: unknown = {}, caller: Caller = ADMIN) {
  const response = await dispatcher.dispatch(
    { jsonrpc: '2.0', id: 1, method, params },
    { caller, transport: 'ws', log, signal: new AbortController().signal },
  );
  if (response === null || Array.isArray(response)) throw new Error('expected one response');
  return response;
}

const fileAgents = async () => parse(await readFile(configPath, 'utf8')).agents;
const commitMessages = () =>
  execFileSync('git', ['-C', dataDir, 'log', '--format=%s'], { encoding: 'utf8' }).trim().split('\n');

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-rpc-agents-'));
  configPath = join(dataDir, 'config.yaml');
  await writeFile(configPath, CONFIG_TEXT);
  events = [];
  const bus = createEventBus({ now: () => 1, log });
  bus.subscribe((event) => events.push(event));
  const configStore = await createConfigStore({
    configPath,
    history: createGitHistory({ dataDir, configPath, env: {} }),
    env: {},
    log,
    events: bus,
  });
  checkProvider = vi.fn<ProviderCheck>(async () => ({ ok: true }));
  agents = createAgentRegistry({ configStore, events: bus, log, checkProvider });
  const methods = agentMethods({ agents });
  methodNames = methods.map((method) => method.name);
  dispatcher = createDispatcher({ registry: createRegistry(methods), maxBatchSize: 50 });
});

afterEach(async () => {
  agents.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('agents.* methods', () => {
  it('are all admin: an rpc-only token gets -32603', async () => {
    expect(methodNames.sort()).toEqual([
      'agents.create',
      'agents.delete',
      'agents.get',
      'agents.list',
      'agents.resume',
      'agents.suspend',
      'agents.update',
    ]);
    for (const name of methodNames) {
      expect(await call(name, { agentId: 'default', name: 'X' }, RPC_ONLY)).toMatchObject({
        error: { code: -32603, message: "Insufficient scope: requires 'admin'", data: { kind: 'forbidden' } },
      });
    }
  });

  it('agents.list and agents.get read the configured agents', async () => {
    expect(await call('agents.list')).toMatchObject({ result: { agents: ['default'] } });
    expect(await call('agents.get', { agentId: 'default' })).toMatchObject({
      result: {
        agentId: 'default',
        name: 'Assistant',
        provider: 'local',
        model: 'llama3.2',
        maxSteps: 8,
        suspended: false,
      },
    });
    expect(await call('agents.get', { agentId: 'nobody' })).toMatchObject({
      error: { code: -32603, message: "Agent 'nobody' not found", data: { kind: 'not_found' } },
    });
  });

  it('agents.create writes the agent to config.yaml and git and answers its configuration', async () => {
    const created = await call('agents.create', {
      name: 'Writer',
      provider: 'cloud',
      model: 'claude',
      systemPrompt: 'Write well.',
      tools: ['memory_search'],
    });
    expect(created).toMatchObject({
      result: {
        agentId: 'writer',
        name: 'Writer',
        provider: 'cloud',
        systemPrompt: 'Write well.',
        tools: ['memory_search'],
        maxSteps: 8,
      },
    });
    expect((await fileAgents()).writer).toEqual({
      name: 'Writer',
      provider: 'cloud',
      model: 'claude',
      systemPrompt: 'Write well.',
      tools: ['memory_search'],
    });
    expect(commitMessages()[0]).toBe('agents.create writer');
    // The config's ${secret:…} references are resolved again for the new config: secret:accessed names each.
    expect(events.map((event) => event.name)).toEqual(['secret:accessed', 'config:patched', 'agent:hot_added']);
    expect(await call('agents.create', { agentId: 'ops', name: 'Ops' })).toMatchObject({ result: { agentId: 'ops' } });
    expect(await call('agents.list')).toMatchObject({ result: { agents: ['default', 'writer', 'ops'] } });
  });

  it('agents.create refuses a taken id, an unknown provider and unknown params', async () => {
    expect(await call('agents.create', { agentId: 'default', name: 'Dup' })).toMatchObject({
      error: { code: -32603, data: { kind: 'conflict' } },
    });
    expect(await call('agents.create', { name: 'Lost', provider: 'nowhere' })).toMatchObject({
      error: { code: -32602, message: expect.stringContaining("agents.lost.provider: unknown provider 'nowhere'") },
    });
    expect(await call('agents.create', { name: 'X', colour: 'red' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'colour' } },
    });
    expect(commitMessages()).toEqual(['initial config']);
  });

  it('agents.update changes only the supplied fields and answers the updated configuration', async () => {
    expect(await call('agents.update', { agentId: 'default', maxSteps: 20 })).toMatchObject({
      result: { agentId: 'default', name: 'Assistant', model: 'llama3.2', maxSteps: 20 },
    });
    expect((await fileAgents()).default).toEqual({
      name: 'Assistant',
      provider: 'local',
      model: 'llama3.2',
      maxSteps: 20,
    });
    expect(commitMessages()[0]).toBe('agents.update default: maxSteps');
    expect(await call('agents.update', { agentId: 'default', maxSteps: 101 })).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('agents.default.maxSteps:') },
    });
    expect(await call('agents.update', { agentId: 'ghost', maxSteps: 2 })).toMatchObject({
      error: { code: -32603, data: { kind: 'not_found' } },
    });
  });

  it('agents.update with dryRun validates and checks the new provider without persisting', async () => {
    const before = await readFile(configPath, 'utf8');
    expect(
      await call('agents.update', { agentId: 'default', provider: 'cloud', model: 'claude', dryRun: true }),
    ).toMatchObject({
      result: {
        agentId: 'default',
        dryRun: true,
        valid: true,
        config: { provider: 'cloud', model: 'claude', name: 'Assistant' },
      },
    });
    expect(checkProvider).toHaveBeenCalledTimes(1);
    expect(checkProvider.mock.calls[0]?.[0]).toBe('cloud');
    checkProvider.mockResolvedValueOnce({ ok: false, error: '401 from upstream' });
    expect(await call('agents.update', { agentId: 'default', provider: 'cloud', dryRun: true })).toMatchObject({
      result: { dryRun: true, valid: false, errors: [expect.stringContaining('401 from upstream')] },
    });
    expect(await call('agents.update', { agentId: 'default', provider: 'nowhere', dryRun: true })).toMatchObject({
      result: { dryRun: true, valid: false, errors: [expect.stringContaining("unknown provider 'nowhere'")] },
    });
    expect(await readFile(configPath, 'utf8')).toBe(before);
    expect(commitMessages()).toEqual(['initial config']);
    expect(agents.get('default')?.config.provider).toBe('local');
  });

  it('agents.suspend, agents.resume and agents.delete persist and answer the spec shapes', async () => {
    expect(await call('agents.suspend', { agentId: 'default' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { agentId: 'default', suspended: true },
    });
    expect(agents.get('default')?.status).toBe('suspended');
    expect((await fileAgents()).default.suspended).toBe(true);
    expect(await call('agents.resume', { agentId: 'default' })).toMatchObject({
      result: { agentId: 'default', resumed: true },
    });
    expect((await fileAgents()).default.suspended).toBe(false);
    expect(await call('agents.delete', { agentId: 'default' })).toMatchObject({
      result: { agentId: 'default', deleted: true },
    });
    expect(agents.get('default')).toBeUndefined();
    expect(await fileAgents()).toEqual({});
    expect(commitMessages()).toEqual([
      'agents.delete default',
      'agents.resume default',
      'agents.suspend default',
      'initial config',
    ]);
    expect(
      events
        .filter((event) => event.name.startsWith('agent:'))
        .map((event) => [event.name, 'change' in event.payload ? event.payload.change : undefined]),
    ).toEqual([
      ['agent:hot_removed', 'suspended'],
      ['agent:hot_added', 'resumed'],
      ['agent:hot_removed', 'removed'],
    ]);
    expect(await call('agents.suspend', { agentId: 'default' })).toMatchObject({
      error: { code: -32603, data: { kind: 'not_found' } },
    });
  });
});

describe('agents.* refuse ids that would become a forbidden object key', () => {
  async function snapshot() {
    return {
      file: await readFile(configPath, 'utf8'),
      commits: commitMessages(),
      running: agents.list().map((agent) => agent.id),
    };
  }

  it.each([
    [{ name: '__proto__' }, 'name'],
    [{ name: 'Constructor' }, 'name'],
    [{ name: 'prototype' }, 'name'],
    [{ agentId: '__proto__', name: 'Sneaky' }, 'agentId'],
    [{ agentId: 'constructor', name: 'Sneaky' }, 'agentId'],
  ])('agents.create %j answers -32602 and writes, commits and adds nothing', async (params, param) => {
    const before = await snapshot();
    const response = await call('agents.create', params);
    expect(response).toMatchObject({ error: { code: -32602, data: { param } } });
    expect(JSON.stringify(response)).toMatch(/is not allowed/);
    expect(await snapshot()).toEqual(before);
    expect(events.filter((event) => event.name === 'agent:hot_added')).toEqual([]);
  });

  it.each(['agents.get', 'agents.update', 'agents.delete', 'agents.suspend', 'agents.resume'])(
    '%s refuses agentId "prototype" with -32602',
    async (method) => {
      const before = await snapshot();
      expect(await call(method, { agentId: 'prototype' })).toMatchObject({
        error: { code: -32602, data: { param: 'agentId' } },
      });
      expect(await snapshot()).toEqual(before);
    },
  );
});
