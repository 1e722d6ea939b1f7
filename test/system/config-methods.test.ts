// config.* over JSON-RPC: admin only, reads redact secrets, changes are validated, committed and reversible.
import type { Caller } from '../../src/server/types.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigStore, createGitHistory, type ConfigStore } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createDispatcher, createRegistry, type Dispatcher } from '../../src/rpc/index.js';
import { configMethods } from '../../src/system/index.js';

const ADMIN_SECRET = 'admin-secret-0123456789abcdefghijklmnop';
const ENV = { OPENAI_API_KEY: 'sk-resolved-key-123', WEBHOOK_SECRET: 'webhook-secret-0123456789' };
const CONFIG_TEXT = `gateway:
  tokens:
    - { id: admin, secret: ${ADMIN_SECRET}, scopes: ["*"] }
  webhook: { secret: "\${WEBHOOK_SECRET}" }
providers:
  local:
    type: openai
    apiKey: \${OPENAI_API_KEY}
agents:
  default: { name: Assistant, provider: local, model: gpt-4o }
`;

const ADMIN: Caller = { clientId: 'admin', scopes: ['*'] };
const ADMIN_ONLY: Caller = { clientId: 'admin-only', scopes: ['admin'] };
const RPC_ONLY: Caller = { clientId: 'rpc-client', scopes: ['rpc'] };
const log = createLogger({ level: 'silent' });

let dataDir: string;
let configPath: string;
let store: ConfigStore;
let dispatcher: Dispatcher;
let methodNames: string[];

async function call(method: string, params: unknown = {}, caller: Caller = ADMIN) {
  const response = await dispatcher.dispatch(
    { jsonrpc: '2.0', id: 1, method, params },
    { caller, transport: 'http', log, signal: new AbortController().signal },
  );
  if (response === null || Array.isArray(response)) throw new Error('expected one response');
  return response;
}

/** The result of a call that must succeed; `T` is the shape the test expects (checked by its assertions). */
async function result<T = unknown>(method: string, params: unknown = {}, caller: Caller = ADMIN): Promise<T> {
  const response = await call(method, params, caller);
  if ('error' in response) throw new Error(`${method} failed: ${response.error.message}`);
  return response.result as T;
}

async function failure(method: string, params: unknown = {}, caller: Caller = ADMIN) {
  const response = await call(method, params, caller);
  if (!('error' in response)) throw new Error(`${method} unexpectedly succeeded`);
  return response.error;
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-rpc-config-'));
  configPath = join(dataDir, 'config.yaml');
  await writeFile(configPath, CONFIG_TEXT);
  store = await createConfigStore({
    configPath,
    history: createGitHistory({ dataDir, configPath, env: {} }),
    env: ENV,
    log,
  });
  const methods = configMethods({ config: store });
  methodNames = methods.map((method) => method.name);
  dispatcher = createDispatcher({ registry: createRegistry(methods), maxBatchSize: 50 });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('config.* methods', () => {
  it('are all admin: an rpc-only token gets -32603, an admin-only token gets through', async () => {
    expect(methodNames.sort()).toEqual([
      'config.apply',
      'config.diff',
      'config.gc',
      'config.get',
      'config.getSectionYaml',
      'config.history',
      'config.patch',
      'config.read',
      'config.rollback',
      'config.schema',
      'config.set',
      'config.setSectionYaml',
    ]);
    for (const name of methodNames) {
      expect(await failure(name, {}, RPC_ONLY)).toEqual({
        code: -32603,
        message: "Insufficient scope: requires 'admin'",
        data: { kind: 'forbidden' },
      });
    }
    expect(await result('config.read', {}, ADMIN_ONLY)).toHaveProperty('sections');
  });

  it('config.read redacts token secrets, API keys and the webhook secret', async () => {
    const whole = await result('config.read');
    expect(whole).toHaveProperty('sections', [
      'gateway',
      'providers',
      'embeddings',
      'agents',
      'openai',
      'responses',
      'memory',
      'approvals',
      'scheduler',
      'audio',
      'media',
      'browser',
      'storage',
      'coordination',
      'obs',
      'mcp',
      'orchestrate',
      'skills',
      'learning',
      'channels',
      'terminal',
      'otel',
      'budgets',
      'metrics',
      'runs',
      'audit',
      'a2a',
      'sessions',
    ]);
    expect(whole).toHaveProperty(['config', 'gateway', 'tokens', 0], { id: 'admin', secret: '***', scopes: ['*'] });
    expect(whole).toHaveProperty('config.gateway.webhook.secret', '***');
    expect(whole).toHaveProperty('config.providers.local.apiKey', '***');
    expect(JSON.stringify(whole)).not.toContain(ENV.OPENAI_API_KEY);
    expect(JSON.stringify(whole)).not.toContain(ADMIN_SECRET);
    expect(await result('config.read', { section: 'providers' })).toMatchObject({
      local: { type: 'openai', apiKey: '***' },
    });
    expect(await result('config.read', { section: 'embeddings' })).toBeNull();
    expect(await failure('config.read', { section: 'nope' })).toMatchObject({
      code: -32602,
      data: { kind: 'invalid_params', param: 'section' },
    });
  });

  it('config.get returns a section as written (references intact), or the whole config redacted', async () => {
    expect(await result('config.get', { section: 'providers' })).toEqual({
      local: { type: 'openai', apiKey: '${OPENAI_API_KEY}' },
    });
    expect(await result('config.get', { section: 'gateway' })).toHaveProperty(
      ['tokens', 0, 'secret'],
      '${secret:gateway.tokens.admin.secret}',
    );
    expect(await result('config.get')).toHaveProperty(['gateway', 'tokens', 0, 'secret'], '***');
  });

  it('config.patch deep-merges, commits and answers sha and sections; an invalid patch names the key', async () => {
    const answer = await result('config.patch', { agents: { default: { maxSteps: 3 } } });
    expect(answer).toEqual({ ok: true, sha: expect.stringMatching(/^[0-9a-f]{40}$/), sections: ['agents'] });
    expect(store.get().agents.default).toMatchObject({ name: 'Assistant', maxSteps: 3 });
    const refused = await failure('config.patch', { agents: { default: { maxSteps: 0 } } });
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain('agents.default.maxSteps:');
    expect(await failure('config.patch', { nosection: {} })).toMatchObject({
      code: -32602,
      message: expect.stringContaining('nosection: unknown key'),
    });
    expect(store.get().agents.default?.maxSteps).toBe(3);
  });

  it('config.set forwards a dotted key and answers the previous value, secrets redacted', async () => {
    expect(await result('config.set', { section: 'gateway', key: 'port', value: 4800 })).toMatchObject({ ok: true });
    expect(await result('config.set', { section: 'gateway', key: 'port', value: 4801 })).toMatchObject({
      ok: true,
      previous: 4800,
    });
    expect(store.get().gateway.port).toBe(4801);
    expect(
      await result('config.set', { section: 'providers', key: 'local.apiKey', value: 'sk-new-key' }),
    ).toMatchObject({ previous: '***' });
    expect(await failure('config.set', { section: 'gateway', key: 'port' })).toMatchObject({
      code: -32602,
      data: { kind: 'invalid_params', param: 'value' },
    });
  });

  it('config.apply takes a whole redacted config back without wiping secrets', async () => {
    const { config } = await result<{ config: { gateway: Record<string, unknown> } }>('config.read');
    config.gateway.maxBatchSize = 5;
    expect(await result('config.apply', config)).toMatchObject({ ok: true, sha: expect.any(String) });
    const text = await readFile(configPath, 'utf8');
    expect(text).not.toContain(ADMIN_SECRET);
    expect(text).toContain('${secret:gateway.tokens.admin.secret}');
    expect(store.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
    expect(text).toContain('${OPENAI_API_KEY}');
    expect(text).toContain('${WEBHOOK_SECRET}');
    expect(store.get().gateway.maxBatchSize).toBe(5);
  });

  it('config.schema answers the JSON Schema of the config or of one section', async () => {
    const whole = await result('config.schema');
    expect(whole).toHaveProperty('sections', [
      'gateway',
      'providers',
      'embeddings',
      'agents',
      'openai',
      'responses',
      'memory',
      'approvals',
      'scheduler',
      'audio',
      'media',
      'browser',
      'storage',
      'coordination',
      'obs',
      'mcp',
      'orchestrate',
      'skills',
      'learning',
      'channels',
      'terminal',
      'otel',
      'budgets',
      'metrics',
      'runs',
      'audit',
      'a2a',
      'sessions',
    ]);
    expect(whole).toHaveProperty('schema.properties.gateway.properties.port.default', 4766);
    expect(whole).toHaveProperty('schema.properties.gateway.properties.port.type', 'integer');
    const agents = await result('config.schema', { section: 'agents' });
    expect(agents).toHaveProperty('section', 'agents');
    expect(agents).toHaveProperty('schema.additionalProperties.properties.maxSteps.maximum', 100);
  });

  it('config.history, config.diff and config.rollback walk and restore the commits', async () => {
    await result('config.patch', { gateway: { maxBatchSize: 9 } });
    const { entries } = await result<{ entries: { sha: string; date: string; message: string }[] }>('config.history', {
      limit: 10,
    });
    expect(entries.map((entry) => entry.message)).toEqual(['config.patch by admin: gateway', 'initial config']);
    expect(entries[0]).toEqual({
      sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      date: expect.any(String),
      message: 'config.patch by admin: gateway',
    });
    const [latest, initial] = entries;
    expect(await result('config.diff')).toEqual({ diff: expect.stringContaining('+  maxBatchSize: 9') });
    expect(await result('config.diff', { sha: latest?.sha })).toEqual({
      diff: expect.stringContaining('+  maxBatchSize: 9'),
    });
    const rolled = await result('config.rollback', { sha: initial?.sha });
    expect(rolled).toEqual({ ok: true, sha: expect.stringMatching(/^[0-9a-f]{40}$/), rolledBackTo: initial?.sha });
    expect(store.get().gateway.maxBatchSize).toBe(50);
    expect(await result('config.history')).toHaveProperty('entries.length', 3);
    expect(await failure('config.rollback', { sha: 'not-a-sha' })).toMatchObject({
      code: -32602,
      data: { kind: 'invalid_params', param: 'sha' },
    });
    expect(await failure('config.rollback', { sha: 'abcdef12' })).toMatchObject({
      code: -32603,
      data: { kind: 'not_found' },
    });
  });

  it('config.gc packs the history', async () => {
    expect(await result('config.gc')).toMatchObject({ ok: true, commits: 1 });
  });
});

describe('config.* refusals leave everything as it was', () => {
  /** What a refused change must not touch: the file, the git history and the running config. */
  async function snapshot() {
    return {
      file: await readFile(configPath, 'utf8'),
      commits: (await store.history.history(1000)).map((entry) => entry.sha),
      running: JSON.stringify(store.get()),
    };
  }

  /** `levels` objects nested under one another: {"a":{"a":…}}. */
  const deep = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);

  it('refuses a 10,000-level document or value with -32602 naming the param, not -32603', async () => {
    const before = await snapshot();
    const patch = await failure('config.patch', { agents: deep(10_000) });
    expect(patch).toEqual({
      code: -32602,
      message: "Invalid params: 'agents' nests deeper than 64 levels",
      data: { kind: 'invalid_params', param: 'agents' },
    });
    expect(
      await failure('config.apply', { gateway: {}, agents: { default: { name: 'A', budget: deep(10_000) } } }),
    ).toMatchObject({
      code: -32602,
      data: { param: 'agents' },
    });
    expect(await failure('config.set', { section: 'agents', key: 'default.budget', value: deep(10_000) })).toEqual({
      code: -32602,
      message: "Invalid params: 'value' nests deeper than 64 levels",
      data: { kind: 'invalid_params', param: 'value' },
    });
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['config.patch', '{"agents":{"__proto__":{"name":"Sneaky"}}}', 'agents.__proto__'],
    ['config.patch', '{"agents":{"constructor":{"name":"Sneaky"}}}', 'agents.constructor'],
    ['config.patch', '{"providers":{"local":{"prototype":{"type":"openai"}}}}', 'providers.local.prototype'],
    ['config.apply', '{"agents":{"default":{"name":"A"},"prototype":{"name":"B"}}}', 'agents.prototype'],
    ['config.set', '{"section":"agents","key":"extra","value":{"name":"C","__proto__":{"x":1}}}', 'value.__proto__'],
    ['config.set', '{"section":"agents","key":"constructor","value":{"name":"C"}}', 'agents.constructor'],
    ['config.apply', '{"__proto__":{"gateway":{"port":1}},"agents":{"default":{"name":"A"}}}', '__proto__'],
  ])('%s refuses %s with -32602, and writes and commits nothing', async (method, params, param) => {
    const before = await snapshot();
    const refused = await failure(method, JSON.parse(params));
    expect(refused).toMatchObject({ code: -32602, data: { param } });
    expect(refused.message).toMatch(/not allowed/);
    expect(await snapshot()).toEqual(before);
  });
});
