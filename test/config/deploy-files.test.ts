// The shipped deployment files stay runnable: the compose config validates with its environment, compose points at
// files that exist, and the systemd unit starts the binary the package builds.
import { access, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { loadConfigFile } from '../../src/config/index.js';

const deploy = (name: string) => fileURLToPath(new URL(`../../deploy/${name}`, import.meta.url));
const composeFile = z.object({
  services: z.record(
    z.string(),
    z.object({
      build: z.object({ context: z.string(), dockerfile: z.string() }).optional(),
      volumes: z.array(z.string()).optional(),
    }),
  ),
});

describe('deployment files', () => {
  it('deploy/config.yaml validates with the environment docker-compose gives it, and holds no secret value', async () => {
    const env = {
      GATEWAY_ADMIN_TOKEN: 'a'.repeat(64),
      PG_URL: 'postgres://gateway:gateway@postgres:5432/gateway',
      REDIS_URL: 'redis://redis:6379',
      OPENAI_API_KEY: 'sk-test',
    };
    const { config, missingEnv } = await loadConfigFile(deploy('config.yaml'), env);
    expect(missingEnv).toEqual([]);
    expect(config.storage.kind).toBe('postgres');
    expect(config.coordination.kind).toBe('redis');
    expect(Object.keys(config.agents)).toEqual(['default']);
    expect(await readFile(deploy('config.yaml'), 'utf8')).not.toMatch(/sk-|postgres:\/\/\w+:\w+@/);
  });

  it('docker-compose builds from deploy/Dockerfile and mounts deploy/config.yaml', async () => {
    const compose = composeFile.parse(parse(await readFile(deploy('docker-compose.yml'), 'utf8'), { merge: true }));
    const gateway = compose.services['gateway-1'];
    expect(gateway?.build?.dockerfile).toBe('deploy/Dockerfile');
    expect(gateway?.volumes).toContain('./config.yaml:/etc/agent-gateway/config.yaml:ro');
    await access(deploy('Dockerfile'));
  });

  it('the systemd unit and the Dockerfile start the bundle the package declares as its binary', async () => {
    const pkg = z
      .object({ bin: z.object({ 'agent-gateway': z.string() }) })
      .parse(JSON.parse(await readFile(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')));
    const binary = pkg.bin['agent-gateway'];
    expect(await readFile(deploy('agent-gateway.service'), 'utf8')).toContain(`/opt/agent-gateway/${binary} start`);
    expect(await readFile(deploy('Dockerfile'), 'utf8')).toContain(`"node", "${binary}"`);
  });
});
