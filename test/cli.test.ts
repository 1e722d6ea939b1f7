// The agent-gateway command line: init (token, doctor, start and rpc have their own files).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('cli', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-cli-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('init creates config.yaml and prints the admin token once; a second init leaves it unchanged', async () => {
    const first = await runCli(['init'], home);
    expect(first.code).toBe(0);
    const configPath = join(home, 'config.yaml');
    expect(first.stdout).toContain(`Created ${configPath} with an admin token`);
    const secret = /^ {2}([A-Za-z0-9]{48})$/m.exec(first.stdout)?.[1];
    expect(secret).toBeDefined();
    // DESIGN §3: the secret lives in secrets.yaml (0600); config.yaml, which is committed, refers to it.
    const text = await readFile(configPath, 'utf8');
    expect(text).toContain('secret: "${secret:gateway.tokens.admin.secret}"');
    expect(text).not.toContain(secret ?? '');
    const secretsPath = join(home, 'secrets.yaml');
    expect(await readFile(secretsPath, 'utf8')).toContain(`gateway.tokens.admin.secret: ${secret ?? ''}`);
    expect((await stat(secretsPath)).mode & 0o777).toBe(0o600);

    const second = await runCli(['init'], home);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`${configPath} already exists; left unchanged.\n`);
    expect(second.stdout).not.toContain(secret ?? '');
    expect(await readFile(configPath, 'utf8')).toBe(text);
  });
});
