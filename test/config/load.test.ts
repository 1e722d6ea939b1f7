// Loading config.yaml: ${ENV} substitution (in secret and URL fields), missing variables, YAML syntax errors and unreadable files.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, parseConfigText } from '../../src/config/index.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';

describe('config loading', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('substitutes ${NAME} in secret and URL fields from the environment', () => {
    const text = `gateway:\n  tokens:\n    - id: admin\n      secret: "\${GW_SECRET}"\ncoordination:\n  kind: redis\n  url: \${GW_REDIS}\n`;
    const { config, missingEnv } = parseConfigText(text, 'x.yaml', {
      GW_REDIS: 'redis://10.0.0.2:6379',
      GW_SECRET: SECRET,
    });
    expect(config.coordination).toMatchObject({ url: 'redis://10.0.0.2:6379' });
    expect(config.gateway.tokens[0]?.secret).toBe(SECRET);
    expect(missingEnv).toEqual([]);
  });

  it('substitutes inside a longer string and in several places', () => {
    const text = 'providers:\n  local:\n    type: openai-compatible\n    baseUrl: "http://${H}:${P}/v1"\n';
    const { config } = parseConfigText(text, 'x.yaml', { H: '10.0.0.1', P: '8080' });
    expect(config.providers.local?.baseUrl).toBe('http://10.0.0.1:8080/v1');
  });

  it('reports every unset variable once, sorted, and substitutes an empty string', () => {
    const text =
      'providers:\n  a:\n    type: openai\n    apiKey: "${ZED_KEY}"\n  b:\n    type: openai\n    apiKey: "${ALPHA_KEY}-${ZED_KEY}"\n';
    const { config, missingEnv } = parseConfigText(text, 'x.yaml', {});
    expect(missingEnv).toEqual(['ALPHA_KEY', 'ZED_KEY']);
    expect(config.providers.a?.apiKey).toBe('');
    expect(config.providers.b?.apiKey).toBe('-');
  });

  it('validates after substitution, so a short secret from the environment names the key', () => {
    const text = 'gateway:\n  tokens:\n    - id: admin\n      secret: "${S}"\n';
    expect(() => parseConfigText(text, 'x.yaml', { S: 'short' })).toThrow(
      'gateway.tokens[0].secret: must be at least 32 characters',
    );
  });

  it('leaves keys and non-string values alone', () => {
    const text = 'gateway:\n  port: 1234\n  web:\n    enabled: false\n';
    const { config } = parseConfigText(text, 'x.yaml', {});
    expect(config.gateway.port).toBe(1234);
    expect(config.gateway.web.enabled).toBe(false);
  });

  it('refuses invalid YAML with a ConfigError naming the file', () => {
    let caught: unknown;
    try {
      parseConfigText('gateway:\n  port: [1, 2\n', '/data/config.yaml', {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toMatch(/^Invalid YAML in \/data\/config\.yaml: /);
  });

  it('accepts an empty file as all defaults', () => {
    expect(parseConfigText('', 'x.yaml', {}).config.gateway.port).toBe(4766);
  });

  it('loads a file from disk', async () => {
    const path = join(dir, 'ok.yaml');
    await writeFile(path, 'gateway:\n  port: 9999\n');
    const { config } = await loadConfigFile(path, {});
    expect(config.gateway.port).toBe(9999);
  });

  it('refuses a file that does not exist, naming the path and the reason', async () => {
    const path = join(dir, 'missing.yaml');
    await expect(loadConfigFile(path, {})).rejects.toThrow(`Cannot read config file ${path}: ENOENT`);
  });

  it('names the file of an invalid config', async () => {
    const path = join(dir, 'bad.yaml');
    await writeFile(path, 'gateway:\n  unknownKey: 1\n');
    await expect(loadConfigFile(path, {})).rejects.toThrow(`Invalid configuration in ${path}`);
    await expect(loadConfigFile(path, {})).rejects.toThrow('gateway.unknownKey: unknown key');
  });

  it.each([
    ['agents:\n  constructor:\n    name: X\n', "agents.constructor: the key 'constructor' is not allowed"],
    ['agents:\n  __proto__:\n    name: X\n', "agents.__proto__: the key '__proto__' is not allowed"],
    [
      'providers:\n  p:\n    type: openai\n    prototype: 1\n',
      "providers.p.prototype: the key 'prototype' is not allowed",
    ],
  ])('refuses a forbidden object key anywhere in the file, naming it', (text, problem) => {
    expect(() => parseConfigText(text, 'x.yaml', {})).toThrow(problem);
  });
});
