// Where the gateway keeps its files: --data-dir, then $AGENT_GATEWAY_HOME, then ~/.agent-gateway; --config overrides the file.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageInfo, resolvePaths } from '../../src/config/index.js';

describe('config paths', () => {
  it('defaults to ~/.agent-gateway', () => {
    const dataDir = join(homedir(), '.agent-gateway');
    expect(resolvePaths({}, {})).toEqual({
      dataDir,
      configPath: join(dataDir, 'config.yaml'),
      secretsPath: join(dataDir, 'secrets.yaml'),
      databasePath: join(dataDir, 'gateway.db'),
    });
  });

  it('uses $AGENT_GATEWAY_HOME, and --data-dir over it', () => {
    expect(resolvePaths({}, { AGENT_GATEWAY_HOME: '/srv/gw' }).configPath).toBe('/srv/gw/config.yaml');
    expect(resolvePaths({ dataDir: '/opt/gw' }, { AGENT_GATEWAY_HOME: '/srv/gw' })).toEqual({
      dataDir: '/opt/gw',
      configPath: '/opt/gw/config.yaml',
      secretsPath: '/opt/gw/secrets.yaml',
      databasePath: '/opt/gw/gateway.db',
    });
  });

  it('takes --config for the file while the database stays in the data dir, resolving relative paths', () => {
    const paths = resolvePaths({ dataDir: 'rel/dir', configPath: 'my.yaml' }, {});
    expect(paths.configPath).toBe(resolve('my.yaml'));
    expect(paths.databasePath).toBe(resolve('rel/dir/gateway.db'));
    expect(paths.secretsPath).toBe(resolve('rel/dir/secrets.yaml'));
  });

  it("finds this package's root and version", () => {
    const info = packageInfo();
    expect(info.root).toBe(resolve(import.meta.dirname, '../..'));
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
