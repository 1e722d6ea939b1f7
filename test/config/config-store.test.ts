// The ConfigStore: every change edits the raw YAML, is validated whole, written atomically, committed and announced.
import { createEventBus, type BusEvent } from '../../src/events/index.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createConfigStore,
  createGitHistory,
  redactSecrets,
  type ConfigChange,
  type ConfigStore,
} from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';

const ADMIN_SECRET = 'admin-secret-0123456789abcdefghijklmnop';
const ENV = { OPENAI_API_KEY: 'sk-resolved-key-123', WEBHOOK_SECRET: 'webhook-secret-0123456789' };

const CONFIG_TEXT = `# Gateway config used by the config-store tests
gateway:
  port: 4766 # the default port
  tokens:
    - id: admin
      secret: ${ADMIN_SECRET}
      scopes: ["*"]
  webhook: { secret: "\${WEBHOOK_SECRET}", agentId: default }
providers:
  local:
    type: openai-compatible
    baseUrl: http://127.0.0.1:11434/v1
    apiKey: \${OPENAI_API_KEY}
    models:
      - { id: llama3.2 }
agents:
  default:
    name: Assistant # keep this comment
    provider: local
    model: llama3.2
`;

let dataDir: string;
let configPath: string;
let events: BusEvent[];

async function openStore(options: { gitBinary?: string } = {}): Promise<ConfigStore> {
  const log = createLogger({ level: 'silent' });
  const bus = createEventBus({ now: () => 1, log });
  bus.subscribe((event) => events.push(event));
  const history = createGitHistory({ dataDir, configPath, env: {}, ...options });
  return createConfigStore({ configPath, history, env: ENV, log, events: bus });
}

function commitMessages(): string[] {
  return execFileSync('git', ['-C', dataDir, 'log', '--format=%s'], { encoding: 'utf8' }).trim().split('\n');
}

const fileText = () => readFile(configPath, 'utf8');

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-store-'));
  configPath = join(dataDir, 'config.yaml');
  await writeFile(configPath, CONFIG_TEXT, { mode: 0o600 });
  events = [];
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('config store', () => {
  it('commits the file at startup and resolves ${ENV} in the effective config', async () => {
    const store = await openStore();
    expect(commitMessages()).toEqual(['initial config']);
    expect(store.get().providers.local?.apiKey).toBe(ENV.OPENAI_API_KEY);
    expect(store.raw('providers')).toMatchObject({ local: { apiKey: '${OPENAI_API_KEY}' } });
  });

  it('persists a patch, commits it, swaps the config and announces it', async () => {
    const store = await openStore();
    const changes: ConfigChange[] = [];
    store.onChange((change) => changes.push(change));
    const result = await store.patch({ gateway: { maxBatchSize: 10 } });
    expect(result.sections).toEqual(['gateway']);
    expect(result.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(store.get().gateway.maxBatchSize).toBe(10);
    expect(parse(await fileText()).gateway.maxBatchSize).toBe(10);
    expect(commitMessages()[0]).toBe('config.patch');
    expect((await store.history.history(5))[0]?.sha).toBe(result.sha);
    expect(await store.history.diff(result.sha ?? '')).toContain('+  maxBatchSize: 10');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ sections: ['gateway'], sha: result.sha });
    expect(changes[0]?.previous.gateway.maxBatchSize).toBe(50);
    expect(events).toContainEqual(
      expect.objectContaining({ name: 'config:patched', payload: { sections: ['gateway'], sha: result.sha } }),
    );
  });

  it('keeps comments, ${ENV} references and layout of untouched keys', async () => {
    const store = await openStore();
    await store.patch({ agents: { default: { maxSteps: 12 } }, providers: { local: { timeoutMs: 5000 } } });
    const text = await fileText();
    expect(text).toContain('# Gateway config used by the config-store tests');
    expect(text).toContain('port: 4766 # the default port');
    expect(text).toContain('name: Assistant # keep this comment');
    expect(text).toContain('apiKey: ${OPENAI_API_KEY}');
    expect(text).toContain('webhook: { secret: "${WEBHOOK_SECRET}", agentId: default }');
    expect(text).not.toContain(ENV.OPENAI_API_KEY);
  });

  it('refuses an invalid patch naming the key, leaving file, config and history untouched', async () => {
    const store = await openStore();
    const before = await fileText();
    const failure = store.patch({ agents: { default: { maxSteps: 1000 } } });
    await expect(failure).rejects.toMatchObject({
      kind: 'invalid_params',
      message: expect.stringContaining('agents.default.maxSteps:'),
    });
    await expect(store.patch({ gateway: { tokens: [{ id: 'x', secret: 'short' }] } })).rejects.toMatchObject({
      message: expect.stringContaining('gateway.tokens[0].secret: must be at least 32 characters'),
    });
    await expect(store.patch({ gateway: { noSuchKey: 1 } })).rejects.toMatchObject({
      message: expect.stringContaining('gateway.noSuchKey: unknown key'),
    });
    expect(await fileText()).toBe(before);
    expect(store.get().agents.default?.maxSteps).toBe(8);
    expect(commitMessages()).toEqual(['initial config']);
    expect(events.filter((event) => event.name === 'config:patched')).toHaveLength(0);
  });

  it('keeps a stored secret when a change sends "***" (read-modify-write of a redacted config)', async () => {
    const store = await openStore();
    const redacted = redactSecrets(store.raw());
    if (!isRecord(redacted) || !isRecord(redacted.gateway)) throw new Error('expected a document of sections');
    redacted.gateway.port = 4800;
    await store.apply(redacted);
    const written = parse(await fileText());
    expect(written.gateway.port).toBe(4800);
    expect(written.gateway.tokens[0].secret).toBe('${secret:gateway.tokens.admin.secret}');
    expect(store.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
    expect(written.providers.local.apiKey).toBe('${OPENAI_API_KEY}');
    expect(written.gateway.webhook.secret).toBe('${WEBHOOK_SECRET}');
    await store.patch({ providers: { local: { apiKey: '***' } } });
    expect(store.get().providers.local?.apiKey).toBe(ENV.OPENAI_API_KEY);
  });

  it('writes a resolved secret back as its ${ENV} reference', async () => {
    const store = await openStore();
    await store.patch({ providers: { local: { apiKey: ENV.OPENAI_API_KEY, timeoutMs: 1000 } } });
    expect(await fileText()).toContain('apiKey: ${OPENAI_API_KEY}');
    await store.patch({ providers: { local: { apiKey: 'sk-a-new-inline-key' } } });
    // A literal secret goes to secrets.yaml; the file gets a reference to it (DESIGN §3).
    expect(parse(await fileText()).providers.local.apiKey).toBe('${secret:providers.local.apiKey}');
    expect(await readFile(join(dataDir, 'secrets.yaml'), 'utf8')).toContain(
      'providers.local.apiKey: sk-a-new-inline-key',
    );
    expect(store.get().providers.local?.apiKey).toBe('sk-a-new-inline-key');
  });

  it('refuses "***" where no secret is stored', async () => {
    const store = await openStore();
    const failure = store.patch({ gateway: { tokens: [{ id: 'new', secret: '***', scopes: [] }] } });
    await expect(failure).rejects.toMatchObject({
      kind: 'invalid_params',
      message: expect.stringContaining('gateway.tokens[0].secret'),
    });
  });

  it('removes a key patched to null and replaces whole lists', async () => {
    const store = await openStore();
    await store.patch({ gateway: { webhook: null }, agents: { default: { tools: ['memory_search'] } } });
    expect(store.get().gateway.webhook).toBeUndefined();
    expect(store.get().agents.default?.tools).toEqual(['memory_search']);
    await store.patch({ agents: { default: { tools: ['memory_store'] } } });
    expect(store.get().agents.default?.tools).toEqual(['memory_store']);
  });

  it('sets a dotted key and returns the previous raw value', async () => {
    const store = await openStore();
    const result = await store.set('gateway', 'rateLimit.maxRequests', 5);
    expect(result.previous).toBeUndefined();
    expect(store.get().gateway.rateLimit).toEqual({ windowMs: 60_000, maxRequests: 5 });
    const second = await store.set('gateway', 'port', 4900);
    expect(second.previous).toBe(4766);
    expect(commitMessages().slice(0, 2)).toEqual([
      'config.set gateway.port',
      'config.set gateway.rateLimit.maxRequests',
    ]);
    await expect(store.set('gateway', '__proto__.polluted', 1)).rejects.toMatchObject({ kind: 'invalid_params' });
  });

  it('makes no commit and no announcement for a change that changes nothing', async () => {
    const store = await openStore();
    const result = await store.patch({ gateway: { port: 4766 } });
    expect(result.sections).toEqual([]);
    expect(commitMessages()).toEqual(['initial config']);
    expect(events).toHaveLength(0);
  });

  it('applies concurrent changes one at a time, one commit each', async () => {
    const store = await openStore();
    await Promise.all([
      store.patch({ gateway: { maxBatchSize: 11 } }),
      store.patch({ agents: { default: { maxSteps: 3 } } }),
      store.set('gateway', 'wsHeartbeatMs', 1000),
    ]);
    expect(store.get().gateway.maxBatchSize).toBe(11);
    expect(store.get().agents.default?.maxSteps).toBe(3);
    expect(store.get().gateway.wsHeartbeatMs).toBe(1000);
    expect(commitMessages()).toHaveLength(4);
  });

  it('rolls back to a commit as a new commit and applies it', async () => {
    const store = await openStore();
    const startText = await fileText();
    const [initial] = await store.history.history(1);
    await store.patch({ gateway: { maxBatchSize: 7 } });
    const result = await store.rollback(initial?.sha.slice(0, 10) ?? '');
    expect(result.rolledBackTo).toBe(initial?.sha);
    expect(result.sha).not.toBe(initial?.sha);
    expect(store.get().gateway.maxBatchSize).toBe(50);
    expect(await fileText()).toBe(startText);
    expect(commitMessages()[0]).toBe(`config.rollback to ${initial?.sha.slice(0, 7)}`);
    await expect(store.rollback('abcdef0123')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('writes the file with mode 0600 and leaves no temp files behind', async () => {
    const store = await openStore();
    await store.patch({ gateway: { maxBatchSize: 9 } });
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);
    const status = execFileSync('git', ['-C', dataDir, 'status', '--porcelain', '--ignored'], { encoding: 'utf8' });
    expect(status).not.toContain('.tmp');
  });

  it('commits an edit made behind its back and builds the next change on it', async () => {
    const store = await openStore();
    await writeFile(configPath, CONFIG_TEXT.replace('port: 4766', 'port: 4999'));
    await store.patch({ gateway: { maxBatchSize: 8 } });
    expect(commitMessages().slice(0, 2)).toEqual(['config.patch', 'external edit']);
    expect(store.get().gateway.port).toBe(4999);
    expect(store.get().gateway.maxBatchSize).toBe(8);
  });

  it('counts the sections of a hand edit it builds a change on as changed too, so listeners reload them', async () => {
    const store = await openStore();
    const changes: ConfigChange[] = [];
    store.onChange((change) => changes.push(change));
    await writeFile(configPath, (await fileText()).replace('name: Assistant', 'name: Edited by hand'));
    const result = await store.patch({ gateway: { maxBatchSize: 8 } });
    expect(store.get().agents.default?.name).toBe('Edited by hand');
    expect(result.sections).toEqual(['agents', 'gateway']);
    expect(changes.map((change) => change.sections)).toEqual([['agents', 'gateway']]);
  });

  it('writes the initial document when the file does not exist yet, and refuses a missing file without one', async () => {
    await rm(configPath);
    const log = createLogger({ level: 'silent' });
    const history = createGitHistory({ dataDir, configPath, env: {} });
    await expect(createConfigStore({ configPath, history, env: ENV, log })).rejects.toThrow(/Cannot read config file/);
    const store = await createConfigStore({
      configPath,
      history,
      env: ENV,
      log,
      initialDocument: { gateway: { port: 0 } },
    });
    expect(await fileText()).toBe('gateway:\n  port: 0\n');
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);
    expect(store.get().gateway.port).toBe(0);
    expect(commitMessages()).toEqual(['initial config']);
  });

  it('applies overrides to every effective config (command-line port and host)', async () => {
    const log = createLogger({ level: 'silent' });
    const store = await createConfigStore({
      configPath,
      history: createGitHistory({ dataDir, configPath, env: {} }),
      env: ENV,
      log,
      overrides: (config) => ({ ...config, gateway: { ...config.gateway, port: 5999 } }),
    });
    expect(store.get().gateway.port).toBe(5999);
    await store.patch({ gateway: { port: 4767, maxBatchSize: 3 } });
    expect(store.get().gateway).toMatchObject({ port: 5999, maxBatchSize: 3 });
    expect(parse(await fileText()).gateway.port).toBe(4767);
  });

  it('still applies changes when git is not installed, and history then reports unavailable', async () => {
    const store = await openStore({ gitBinary: join(dataDir, 'no-such-git') });
    const result = await store.patch({ gateway: { maxBatchSize: 12 } });
    expect(result).toEqual({ sha: null, sections: ['gateway'] });
    expect(store.get().gateway.maxBatchSize).toBe(12);
    await expect(store.history.history(5)).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(store.rollback('abcdef0')).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
