// `agent-gateway doctor`: one ok/warn/fail line per check; exit 1 when a check fails.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe.concurrent('cli doctor', () => {
  let validHome: string;
  let invalidHome: string;
  beforeAll(async () => {
    validHome = await mkdtemp(join(tmpdir(), 'agent-gateway-doctor-'));
    invalidHome = await mkdtemp(join(tmpdir(), 'agent-gateway-doctor-'));
    await writeFile(
      join(validHome, 'config.yaml'),
      'gateway:\n  port: 0\n  tokens:\n    - id: admin\n      secret: "${DOCTOR_SECRET}"\n      scopes: ["*"]\n',
    );
    await writeFile(
      join(invalidHome, 'config.yaml'),
      'gateway:\n  tokens:\n    - id: admin\n      secret: too-short\n',
    );
  });
  afterAll(async () => {
    await Promise.all([
      rm(validHome, { recursive: true, force: true }),
      rm(invalidHome, { recursive: true, force: true }),
    ]);
  });

  it('prints ok and warn lines and exits 0 on a valid config', async () => {
    const result = await runCli(['doctor'], validHome, { DOCTOR_SECRET: 'doctor-secret-0123456789abcdefghijklmn' });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/^(ok {3}|warn )[a-z]+: /);
    expect(lines).toContain(`ok   config: ${join(validHome, 'config.yaml')}`);
    expect(result.stdout).toMatch(/^ok {3}storage: .*journal_mode=wal/m);
    expect(result.stdout).toMatch(/^ok {3}tokens: 1 configured token/m);
    expect(result.stdout).toMatch(/^warn providers: no LLM provider configured/m);
    expect(result.stdout).toMatch(/^ok {3}listen: /m);
  });

  it('exits 1 on an invalid config, naming the key', async () => {
    const result = await runCli(['doctor'], invalidHome);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^fail config: Invalid configuration in /);
    expect(result.stdout).toContain('gateway.tokens[0].secret: must be at least 32 characters');
  });
});
