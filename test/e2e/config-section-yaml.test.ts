// Editing one config section as YAML over a started gateway (config.getSectionYaml / config.setSectionYaml): parse and
// schema errors answer -32602 naming the path and line and write nothing; a valid edit keeps the user's text (comments
// included) inside the section and every other section byte-identical, in one commit naming the actor and section.
// config.set commits name the actor and section too.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, TOKEN_IDS, TOKENS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

interface RpcError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

describe('config sections edited as YAML', () => {
  let harness: Harness;
  const rpc = (method: string, params?: unknown) => callRpc(harness.url, harness.tokens.admin, method, params);
  const newestCommit = async (): Promise<string | undefined> => {
    const { result } = await rpc('config.history', {});
    return (result as { entries: { message: string }[] }).entries[0]?.message;
  };
  const commitCount = async (): Promise<number> => {
    const { result } = await rpc('config.history', {});
    return (result as { entries: unknown[] }).entries.length;
  };

  beforeAll(async () => {
    harness = await startGateway({ gateway: { cors: { origins: ['https://dashboard.example'] } } });
    // The history repository is made after start; an edit before it would be folded into its first commit.
    await vi.waitFor(async () => expect(await commitCount()).toBe(1), { timeout: 5_000, interval: 50 });
    expect(await rpc('config.patch', { obs: { retentionDays: 7 } })).toHaveProperty('result.ok', true);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('config.set names the token and the section in its commit', async () => {
    const set = await rpc('config.set', { section: 'obs', key: 'retentionDays', value: 9 });
    expect(set).toHaveProperty('result.ok', true);
    expect(await newestCommit()).toBe(`config.set by ${TOKEN_IDS.admin}: obs`);
  });

  it('shows a section as YAML without its secret values', async () => {
    const { result } = await rpc('config.getSectionYaml', { section: 'gateway' });
    const { yaml } = result as { yaml: string };
    expect(yaml).toContain('https://dashboard.example');
    expect(yaml).not.toMatch(/^gateway:/);
    for (const secret of Object.values(TOKENS)) expect(yaml).not.toContain(secret);
  });

  it('answers -32602 with the line of a YAML syntax error and writes nothing', async () => {
    const before = await readFile(harness.paths.configPath, 'utf8');
    const commits = await commitCount();
    const { error } = await rpc('config.setSectionYaml', {
      section: 'obs',
      yaml: 'retentionDays: 3\nretentionDays: 4\n',
    });
    expect((error as RpcError).code).toBe(-32602);
    expect((error as RpcError).message).toMatch(/^Invalid YAML at line 2: /);
    expect((error as RpcError).data).toMatchObject({ param: 'yaml' });
    expect(await readFile(harness.paths.configPath, 'utf8')).toBe(before);
    expect(await commitCount()).toBe(commits);
  });

  it('answers -32602 naming the path and line of a schema violation and writes nothing', async () => {
    const before = await readFile(harness.paths.configPath, 'utf8');
    const commits = await commitCount();
    const { error } = await rpc('config.setSectionYaml', {
      section: 'obs',
      yaml: '# how long evidence stays\nretentionDays: many\n',
    });
    expect((error as RpcError).code).toBe(-32602);
    expect((error as RpcError).message).toMatch(/obs\.retentionDays: .*\(line 2\)$/);
    expect((error as RpcError).data).toMatchObject({ param: 'obs.retentionDays' });
    expect(await readFile(harness.paths.configPath, 'utf8')).toBe(before);
    expect(await commitCount()).toBe(commits);
  });

  it('refuses a text over the length limit before parsing it', async () => {
    const { error } = await rpc('config.setSectionYaml', { section: 'obs', yaml: `# ${'x'.repeat(262_144)}\n` });
    expect((error as RpcError).code).toBe(-32602);
    expect((error as RpcError).data).toMatchObject({ param: 'yaml' });
  });

  it('a dry run validates without writing', async () => {
    const before = await readFile(harness.paths.configPath, 'utf8');
    const checked = await rpc('config.setSectionYaml', { section: 'obs', yaml: 'retentionDays: 4\n', dryRun: true });
    expect(checked.result).toMatchObject({ ok: true, dryRun: true, sections: ['obs'] });
    expect(await readFile(harness.paths.configPath, 'utf8')).toBe(before);
    expect(await rpc('config.read', { section: 'obs' })).toHaveProperty('result.retentionDays', 9);
  });

  it('keeps the text written inside the section and every other section byte-identical', async () => {
    const before = await readFile(harness.paths.configPath, 'utf8');
    const [head, obsAndAfter] = before.split(/^obs:\n/m);
    expect(obsAndAfter).toBeDefined();
    const yaml = '# evidence is kept two weeks (ops ticket 12)\nretentionDays: 14   # days\n';
    const saved = await rpc('config.setSectionYaml', { section: 'obs', yaml });
    expect(saved.result).toMatchObject({ ok: true, sections: ['obs'] });
    const after = await readFile(harness.paths.configPath, 'utf8');
    expect(after).toBe(`${head}obs:\n  # evidence is kept two weeks (ops ticket 12)\n  retentionDays: 14   # days\n`);
    expect(await rpc('config.read', { section: 'obs' })).toHaveProperty('result.retentionDays', 14);
    expect(await newestCommit()).toBe(`config.setSectionYaml by ${TOKEN_IDS.admin}: obs`);
    const shown = await rpc('config.getSectionYaml', { section: 'obs' });
    expect(shown.result).toMatchObject({ section: 'obs', yaml });
  });

  it('"***" keeps a stored secret and the rest of the edit lands', async () => {
    const { result } = await rpc('config.getSectionYaml', { section: 'gateway' });
    const yaml = `# who may call\n${(result as { yaml: string }).yaml.replace('https://dashboard.example', 'https://ops.example')}`;
    expect(yaml).toContain('***');
    const saved = await rpc('config.setSectionYaml', { section: 'gateway', yaml });
    expect(saved.result).toMatchObject({ ok: true, sections: ['gateway'] });
    // The admin token's stored secret was kept: the token still signs in.
    expect(await rpc('config.read', { section: 'gateway' })).toHaveProperty('result.cors.origins', [
      'https://ops.example',
    ]);
    const after = await readFile(harness.paths.configPath, 'utf8');
    expect(after).toContain('# who may call');
    expect(after).not.toContain('***');
    for (const secret of Object.values(TOKENS)) expect(after).not.toContain(secret);
  });
});
