// Secrets and config history (DESIGN §3): secret values live in secrets.yaml (0600, never committed), the committed
// config.yaml holds ${secret:NAME} references, and an existing data dir whose history holds secrets is migrated.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigStore, createGitHistory, redactSecrets, type ConfigStore } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';

const log = createLogger({ level: 'silent' });
const ADMIN_SECRET = 'admin-secret-0123456789abcdefghijklmnop';
const SECOND_ADMIN_SECRET = 'rotated-admin-secret-0123456789abcdefgh';
const API_KEY = 'sk-first-provider-key-0123456789';
const SECOND_API_KEY = 'sk-second-provider-key-9876543210';
const WEBHOOK_SECRET = 'webhook-secret-0123456789abcdef';

let dataDir: string;
let configPath: string;
let secretsPath: string;

function git(...args: string[]): string {
  return execFileSync('git', ['-C', dataDir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: '', GIT_COMMITTER_DATE: '' },
  });
}

/** Everything git holds: every patch of every ref, and the content of every object, packed or loose. */
function everythingInGit(): string {
  const patches = git('log', '-p', '--all', '--format=%H %s');
  const objects = execFileSync('git', ['-C', dataDir, 'cat-file', '--batch-all-objects', '--batch'], {
    encoding: 'latin1',
  });
  return `${patches}\n${objects}`;
}

function configText(adminSecret: string, apiKey: string): string {
  return `# hand-written before secrets moved out
gateway:
  tokens:
    - id: admin
      secret: ${adminSecret}
      scopes: ["*"]
  webhook: { secret: ${WEBHOOK_SECRET} }
providers:
  cloud:
    type: openai
    apiKey: ${apiKey}
`;
}

async function openStore(): Promise<ConfigStore> {
  return createConfigStore({
    configPath,
    secretsPath,
    history: createGitHistory({ dataDir, configPath, env: {} }),
    env: {},
    log,
  });
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-secrets-'));
  configPath = join(dataDir, 'config.yaml');
  secretsPath = join(dataDir, 'secrets.yaml');
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('secrets and config history', () => {
  it('moves literal secrets to secrets.yaml (0600) before the first commit; the effective config still has them', async () => {
    await writeFile(configPath, configText(ADMIN_SECRET, API_KEY), { mode: 0o600 });
    const store = await openStore();
    const file = await readFile(configPath, 'utf8');
    expect(parse(file)).toMatchObject({
      gateway: {
        tokens: [{ id: 'admin', secret: '${secret:gateway.tokens.admin.secret}' }],
        webhook: { secret: '${secret:gateway.webhook.secret}' },
      },
      providers: { cloud: { apiKey: '${secret:providers.cloud.apiKey}' } },
    });
    expect(file).toContain('# hand-written before secrets moved out');
    expect(parse(await readFile(secretsPath, 'utf8'))).toEqual({
      'gateway.tokens.admin.secret': ADMIN_SECRET,
      'gateway.webhook.secret': WEBHOOK_SECRET,
      'providers.cloud.apiKey': API_KEY,
    });
    expect((await stat(secretsPath)).mode & 0o777).toBe(0o600);
    expect(store.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
    expect(store.get().providers.cloud?.apiKey).toBe(API_KEY);
    expect(redactSecrets(store.get()).providers.cloud?.apiKey).toBe('***');
    const everything = everythingInGit();
    for (const secret of [ADMIN_SECRET, API_KEY, WEBHOOK_SECRET]) expect(everything).not.toContain(secret);
    expect(git('ls-files').trim().split('\n').sort()).toEqual(['.gitignore', 'config.yaml']);
  });

  it('keeps a replaced secret out of every commit and object, and a rollback brings the old value back', async () => {
    await writeFile(configPath, configText(ADMIN_SECRET, API_KEY), { mode: 0o600 });
    const store = await openStore();
    const [before] = await store.history.history(1);
    await store.patch({ providers: { cloud: { apiKey: SECOND_API_KEY } } });
    await store.set('gateway', 'tokens.0.secret', SECOND_ADMIN_SECRET);
    expect(store.get().providers.cloud?.apiKey).toBe(SECOND_API_KEY);
    expect(store.get().gateway.tokens[0]?.secret).toBe(SECOND_ADMIN_SECRET);
    expect(git('log', '--format=%s').trim().split('\n')).toEqual([
      'config.set gateway.tokens.0.secret',
      'config.patch',
      'initial config',
    ]);

    const everything = everythingInGit();
    for (const secret of [ADMIN_SECRET, SECOND_ADMIN_SECRET, API_KEY, SECOND_API_KEY])
      expect(everything).not.toContain(secret);
    expect(await store.history.diff()).toContain('${secret:gateway.tokens.admin.secret-2}');

    await store.rollback(before?.sha ?? '');
    expect(store.get().providers.cloud?.apiKey).toBe(API_KEY);
    expect(store.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
    expect(everythingInGit()).not.toContain(API_KEY);
  });

  it('writes a secret sent as "***" back as its reference, and refuses nothing that resolves', async () => {
    await writeFile(configPath, configText(ADMIN_SECRET, API_KEY), { mode: 0o600 });
    const store = await openStore();
    const before = await readFile(configPath, 'utf8');
    const raw = store.raw();
    if (typeof raw !== 'object' || raw === null) throw new Error('expected a document');
    await store.apply(redactSecrets({ ...raw }));
    await store.patch({ providers: { cloud: { apiKey: API_KEY } } });
    expect(await readFile(configPath, 'utf8')).toBe(before);
  });

  it('moves the secrets of a hand edit out before committing it as "external edit"', async () => {
    await writeFile(configPath, configText(ADMIN_SECRET, API_KEY), { mode: 0o600 });
    const store = await openStore();
    await writeFile(configPath, configText(ADMIN_SECRET, SECOND_API_KEY));
    await store.patch({ gateway: { maxBatchSize: 9 } });
    expect(git('log', '--format=%s').trim().split('\n')).toEqual(['config.patch', 'external edit', 'initial config']);
    expect(store.get().providers.cloud?.apiKey).toBe(SECOND_API_KEY);
    expect(await readFile(configPath, 'utf8')).toContain('apiKey: ${secret:providers.cloud.apiKey-2}');
    expect(everythingInGit()).not.toContain(SECOND_API_KEY);
  });

  it('migrates an existing data dir: every commit is rewritten without its secrets, and the old objects are gone', async () => {
    // A history as an earlier version wrote it: literal secrets in config.yaml, one commit per change.
    git('init', '--quiet');
    git('config', 'user.name', 'agent-gateway');
    git('config', 'user.email', 'agent-gateway@localhost');
    await writeFile(join(dataDir, '.gitignore'), '*\n!config.yaml\n!.gitignore\n');
    await writeFile(configPath, configText(ADMIN_SECRET, API_KEY));
    git('add', 'config.yaml', '.gitignore');
    git('commit', '--quiet', '-m', 'initial config');
    const firstDate = git('log', '-1', '--format=%cI').trim();
    await writeFile(configPath, `${configText(ADMIN_SECRET, API_KEY)}broken: [yaml\n`);
    git('commit', '--quiet', '-am', 'external edit');
    await writeFile(configPath, configText(SECOND_ADMIN_SECRET, SECOND_API_KEY));
    git('commit', '--quiet', '-am', 'config.patch');
    git('tag', 'before-upgrade', 'HEAD~1');
    for (const secret of [ADMIN_SECRET, API_KEY, SECOND_ADMIN_SECRET]) expect(everythingInGit()).toContain(secret);

    const store = await openStore();
    const everything = everythingInGit();
    for (const secret of [ADMIN_SECRET, SECOND_ADMIN_SECRET, API_KEY, SECOND_API_KEY, WEBHOOK_SECRET])
      expect(everything).not.toContain(secret);
    expect(git('log', '--format=%s').trim().split('\n')).toEqual(['config.patch', 'external edit', 'initial config']);
    expect(git('log', '--reverse', '--format=%cI').trim().split('\n')[0]).toBe(firstDate);
    expect(git('status', '--porcelain').trim()).toBe('');
    expect(store.get().gateway.tokens[0]?.secret).toBe(SECOND_ADMIN_SECRET);
    expect(store.get().providers.cloud?.apiKey).toBe(SECOND_API_KEY);
    expect(parse(await readFile(secretsPath, 'utf8'))).toMatchObject({
      'gateway.tokens.admin.secret': SECOND_ADMIN_SECRET,
      'gateway.tokens.admin.secret-2': ADMIN_SECRET,
      'providers.cloud.apiKey': SECOND_API_KEY,
      'providers.cloud.apiKey-2': API_KEY,
    });

    // The first commit still works: its references resolve to the values it held.
    const first = git('rev-list', '--max-parents=0', 'HEAD').trim();
    await store.rollback(first);
    expect(store.get().gateway.tokens[0]?.secret).toBe(ADMIN_SECRET);
    expect(store.get().providers.cloud?.apiKey).toBe(API_KEY);

    // Done once: a second start finds the history clean and rewrites nothing.
    const head = git('rev-parse', 'HEAD').trim();
    await openStore();
    expect(git('rev-parse', 'HEAD').trim()).toBe(head);
  });
});
