// First run: config.yaml is created once with a 48-character admin secret and never overwritten.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureConfigFile, generateSecret, loadConfigFile } from '../../src/config/index.js';

describe('first-run config', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-first-run-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the data dir and a valid config with one admin token of a 48-character secret', async () => {
    const configPath = join(dir, 'nested', 'config.yaml');
    const result = await ensureConfigFile(configPath);
    expect(result.created).toBe(true);
    expect(result.adminSecret).toMatch(/^[A-Za-z0-9]{48}$/);
    const { config } = await loadConfigFile(configPath, {}, join(dir, 'nested', 'secrets.yaml'));
    expect(config.gateway.host).toBe('127.0.0.1');
    expect(config.gateway.port).toBe(4766);
    expect(config.gateway.tokens).toEqual([{ id: 'admin', secret: result.adminSecret, scopes: ['*'] }]);
  });

  it('writes the file readable by its owner only', async () => {
    const configPath = join(dir, 'config.yaml');
    await ensureConfigFile(configPath);
    expect((await stat(configPath)).mode & 0o077).toBe(0);
  });

  it('keeps the admin secret in secrets.yaml (0600) and only a reference to it in config.yaml', async () => {
    const configPath = join(dir, 'config.yaml');
    const secretsPath = join(dir, 'secrets.yaml');
    const result = await ensureConfigFile(configPath, secretsPath);
    const text = await readFile(configPath, 'utf8');
    expect(text).not.toContain(result.adminSecret);
    expect(text).toContain('"${secret:gateway.tokens.admin.secret}"');
    expect(await readFile(secretsPath, 'utf8')).toContain(`gateway.tokens.admin.secret: ${result.adminSecret ?? ''}`);
    expect((await stat(secretsPath)).mode & 0o777).toBe(0o600);
  });

  it('never overwrites an existing config and reveals no secret the second time', async () => {
    const configPath = join(dir, 'config.yaml');
    const first = await ensureConfigFile(configPath);
    const text = await readFile(configPath, 'utf8');
    const second = await ensureConfigFile(configPath);
    expect(second).toEqual({ created: false });
    expect(await readFile(configPath, 'utf8')).toBe(text);
    expect(first.adminSecret).toMatch(/^[A-Za-z0-9]{48}$/);
  });

  it('leaves a hand-written config alone', async () => {
    const configPath = join(dir, 'config.yaml');
    await writeFile(configPath, 'gateway:\n  port: 1\n');
    expect((await ensureConfigFile(configPath)).created).toBe(false);
    expect(await readFile(configPath, 'utf8')).toBe('gateway:\n  port: 1\n');
  });

  it('generates secrets of the requested length from [A-Za-z0-9], different each time', () => {
    expect(generateSecret()).toHaveLength(48);
    expect(generateSecret(64)).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(generateSecret()).not.toBe(generateSecret());
  });
});
