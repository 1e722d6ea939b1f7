// ${ENV} and ${secret:NAME} references: substituted only in the secret and URL fields of the config; a reference in any
// other string is refused naming the key, at load, on a change and on a hand edit, and config.read never shows a resolved secret.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  createConfigStore,
  createGitHistory,
  loadConfigFile,
  parseConfigText,
  type ConfigStore,
} from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createDispatcher, createRegistry } from '../../src/rpc/index.js';
import { configMethods } from '../../src/system/index.js';

const ADMIN_SECRET = 'admin-secret-0123456789abcdefghijklmnop';
const LEAKING_NAME = 'Helper ${secret:gateway.tokens.admin.secret}';
const REFUSAL = 'references (${…}) are allowed only in secret and URL fields';

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('references at load', () => {
  const secrets = new Map([
    ['gateway.tokens.admin.secret', ADMIN_SECRET],
    ['pg', 'pg-password'],
  ]);

  it('refuses the leaking agent name, naming the key, and never substitutes it', () => {
    const text = `gateway:\n  tokens:\n    - { id: admin, secret: "\${secret:gateway.tokens.admin.secret}" }\nagents:\n  default:\n    name: "${LEAKING_NAME}"\n`;
    expect(problemsOf(() => parseConfigText(text, 'config.yaml', {}, secrets))).toEqual([
      `agents.default.name: ${REFUSAL}`,
    ]);
    expect(() => parseConfigText(text, 'config.yaml', {}, secrets)).toThrow(
      /^Invalid configuration in config\.yaml:\n {2}agents\.default\.name: references/,
    );
  });

  it('refuses ${ENV} outside the reference fields too, every such key named (list items by position)', () => {
    const text = [
      'gateway:',
      '  host: "${GW_HOST}"',
      'agents:',
      '  default:',
      '    name: Assistant',
      '    systemPrompt: "You run on ${HOSTNAME}"',
      '    tools: [current_time, "${TOOL}"]',
      'media:',
      '  dir: "${HOME}/media"',
    ].join('\n');
    expect(
      problemsOf(() =>
        parseConfigText(text, 'x.yaml', { GW_HOST: '0.0.0.0', HOSTNAME: 'box', TOOL: 't', HOME: '/home/a' }),
      ),
    ).toEqual([
      `gateway.host: ${REFUSAL}`,
      `agents.default.systemPrompt: ${REFUSAL}`,
      `agents.default.tools[1]: ${REFUSAL}`,
      `media.dir: ${REFUSAL}`,
    ]);
  });

  it('substitutes in every secret and URL field', () => {
    const env = { KEY: 'sk-env-key', HOST: '10.0.0.5', REDIS: 'redis://cache:6379', HOOK: 'webhook-secret-0123456789' };
    const text = [
      'gateway:',
      '  tokens:',
      '    - { id: admin, secret: "${secret:gateway.tokens.admin.secret}" }',
      '  webhook: { secret: "${HOOK}" }',
      'providers:',
      '  cloud: { type: openai-compatible, baseUrl: "http://${HOST}:8080/v1", apiKey: "${KEY}" }',
      'storage: { kind: postgres, url: "postgres://app:${secret:pg}@db/gateway" }',
      'coordination: { kind: redis, url: "${REDIS}" }',
    ].join('\n');
    const { config, missingEnv } = parseConfigText(text, 'x.yaml', env, secrets);
    expect(missingEnv).toEqual([]);
    expect(config.gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
    expect(config.gateway.webhook?.secret).toBe(env.HOOK);
    expect(config.providers.cloud).toMatchObject({ baseUrl: 'http://10.0.0.5:8080/v1', apiKey: 'sk-env-key' });
    expect(config.storage).toMatchObject({ url: 'postgres://app:pg-password@db/gateway' });
    expect(config.coordination).toMatchObject({ url: env.REDIS });
  });

  it('refuses a hand-written file with the leaking name when the gateway starts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-references-'));
    try {
      const path = join(dir, 'config.yaml');
      await writeFile(path, `agents:\n  default:\n    name: "${LEAKING_NAME}"\n`);
      await writeFile(join(dir, 'secrets.yaml'), `gateway.tokens.admin.secret: ${ADMIN_SECRET}\n`);
      await expect(loadConfigFile(path, {}, join(dir, 'secrets.yaml'))).rejects.toThrow(
        `agents.default.name: ${REFUSAL}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('references through the config store', () => {
  const log = createLogger({ level: 'silent' });
  let dataDir: string;
  let configPath: string;
  let store: ConfigStore;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-references-store-'));
    configPath = join(dataDir, 'config.yaml');
    await writeFile(
      configPath,
      [
        'gateway:',
        `  tokens: [{ id: admin, secret: ${ADMIN_SECRET}, scopes: ["*"] }]`,
        'providers:',
        '  cloud: { type: openai-compatible, baseUrl: "https://llm.example/v1?key=${secret:llm.urlKey}", apiKey: "${CLOUD_KEY}" }',
        'agents:',
        '  default: { name: Assistant, provider: cloud }',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    await writeFile(join(dataDir, 'secrets.yaml'), 'llm.urlKey: url-key-in-secrets-0123\n', { mode: 0o600 });
    store = await createConfigStore({
      configPath,
      history: createGitHistory({ dataDir, configPath, env: {} }),
      env: { CLOUD_KEY: 'sk-cloud-key-from-env' },
      log,
    });
  });

  afterEach(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a patch that puts a reference in the agent name, naming the key; nothing is written', async () => {
    const before = await readFile(configPath, 'utf8');
    await expect(store.patch({ agents: { default: { name: LEAKING_NAME } } })).rejects.toMatchObject({
      kind: 'invalid_params',
      message: `Invalid config: agents.default.name: ${REFUSAL}`,
      details: { param: 'agents.default.name' },
    });
    expect(await readFile(configPath, 'utf8')).toBe(before);
    expect(store.get().agents.default?.name).toBe('Assistant');
  });

  it('refuses a hand edit with the leaking name: the running config stays', async () => {
    const text = await readFile(configPath, 'utf8');
    await writeFile(configPath, text.replace('name: Assistant', `name: "${LEAKING_NAME}"`));
    expect(await store.reloadFromDisk()).toBeUndefined();
    expect(store.get().agents.default?.name).toBe('Assistant');
  });

  it('config.read shows a URL whose reference names a secret as written, never resolved', async () => {
    expect(store.get().providers.cloud?.baseUrl).toBe('https://llm.example/v1?key=url-key-in-secrets-0123');
    const dispatcher = createDispatcher({
      registry: createRegistry(configMethods({ config: store })),
      maxBatchSize: 5,
    });
    const read = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 1, method: 'config.read', params: {} },
      { caller: { clientId: 'admin', scopes: ['*'] }, transport: 'http', log, signal: new AbortController().signal },
    );
    const text = JSON.stringify(read);
    expect(text).toContain('https://llm.example/v1?key=${secret:llm.urlKey}');
    for (const secret of ['url-key-in-secrets-0123', 'sk-cloud-key-from-env', ADMIN_SECRET])
      expect(text).not.toContain(secret);
  });
});
