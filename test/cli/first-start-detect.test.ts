// A first start finds the user's models: a local Ollama on the probe list, or an OPENAI_API_KEY in the environment,
// becomes a provider, a default agent and embeddings in the new config, and a first chat through /v1 works with no
// edits; probe URLs off loopback are refused; `init --detect` adds what it finds to an existing config, keeping what
// is there.
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli, spawnCli, type RunningCli } from '../support/cli.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';

const LISTENING = /Agent Gateway listening on (https?:\/\/\S+?)["\s]/;
const OPENAI_KEY = 'sk-first-start-test-key-0123456789abcdef';

interface Chat {
  status: number;
  content: unknown;
}

async function chat(url: string, token: string, text: string): Promise<Chat> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: text }] }),
  });
  const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
  return { status: response.status, content: body.choices?.[0]?.message?.content };
}

/** A non-loopback IPv4 address of this machine, if it has one. */
function outsideAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  return undefined;
}

describe('first start finds your models', () => {
  const homes: string[] = [];
  const servers: RunningCli[] = [];
  const fakes: FakeLlm[] = [];
  const newHome = async () => {
    const home = await mkdtemp(join(tmpdir(), 'agent-gateway-detect-'));
    homes.push(home);
    return home;
  };
  const readConfig = async (home: string) => readFile(join(home, 'config.yaml'), 'utf8');
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
    }
    for (const fake of fakes.splice(0)) await fake.close();
    // A git commit of the config history the killed gateway started may still be writing into the home's .git.
    for (const home of homes.splice(0))
      await rm(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  /** A first start with `env`; answers the home, the url and the printed admin secret once it listens. */
  async function firstStart(env: Record<string, string>) {
    const home = await newHome();
    const server = spawnCli(['start', '--port', '0'], home, 'source', env);
    servers.push(server);
    const [, url = ''] = await server.waitForOutput(LISTENING, 30_000);
    const secret = /^ {2}([A-Za-z0-9]{48})$/m.exec(server.stdout())?.[1] ?? '';
    return { home, server, url, secret };
  }

  it('with Ollama on the probe list: writes it as a provider, a default agent and embeddings; a chat works', async () => {
    const ollama = await startFakeLlm({ models: ['llama3.2:latest', 'nomic-embed-text:latest'], ollamaTags: true });
    fakes.push(ollama);
    const { home, server, url, secret } = await firstStart({ AGENT_GATEWAY_PROBE_URLS: ollama.url });

    expect(server.stdout()).toContain(`Found Ollama at ${ollama.url}: llama3.2:latest, nomic-embed-text:latest`);
    expect(server.stdout()).toMatch(/Wrote providers\.ollama, agents\.default \(ollama\/llama3\.2:latest\)/);
    const config = parse(await readConfig(home)) as Record<string, unknown>;
    expect(config).toMatchObject({
      providers: {
        ollama: {
          type: 'openai-compatible',
          baseUrl: ollama.baseUrl,
          // The chat models: an embedding model is not offered for chat.
          models: [{ id: 'llama3.2:latest' }],
        },
      },
      agents: { default: { provider: 'ollama', model: 'llama3.2:latest' } },
      embeddings: { provider: 'ollama', model: 'nomic-embed-text:latest' },
    });

    expect(await chat(url, secret, 'hello there')).toEqual({ status: 200, content: 'Echo: hello there' });
    expect(ollama.chatRequests().at(-1)?.body).toMatchObject({ model: 'llama3.2:latest' });
  });

  it('with OPENAI_API_KEY: the config holds ${OPENAI_API_KEY}, never the key; OPENAI_BASE_URL is honoured', async () => {
    const openai = await startFakeLlm({ apiKey: OPENAI_KEY });
    fakes.push(openai);
    const { home, server, url, secret } = await firstStart({
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: openai.baseUrl,
    });

    const text = await readConfig(home);
    expect(text).toContain('${OPENAI_API_KEY}');
    expect(text).toContain('${OPENAI_BASE_URL}');
    expect(text).not.toContain(OPENAI_KEY);
    expect(await readFile(join(home, 'secrets.yaml'), 'utf8')).not.toContain(OPENAI_KEY);
    expect(server.stdout()).not.toContain(OPENAI_KEY);
    expect(server.stdout()).toContain('Found OPENAI_API_KEY');
    expect(parse(text)).toMatchObject({
      providers: { openai: { type: 'openai', apiKey: '${OPENAI_API_KEY}', baseUrl: '${OPENAI_BASE_URL}' } },
      agents: { default: { provider: 'openai' } },
      embeddings: { provider: 'openai', model: 'text-embedding-3-small' },
    });

    // The fake answers 401 to any other key: a 200 is the key from the environment, sent to the overridden base URL.
    expect(await chat(url, secret, 'hi')).toEqual({ status: 200, content: 'Echo: hi' });
  });

  it('refuses a probe URL off loopback, before writing a config or sending it a request', async () => {
    let requests = 0;
    const outside: Server = createServer((_request, response) => {
      requests += 1;
      response.end('{"models":[]}');
    });
    await new Promise<void>((resolve) => outside.listen(0, '0.0.0.0', resolve));
    try {
      const { port } = outside.address() as AddressInfo;
      const probe = `http://${outsideAddress() ?? 'example.com'}:${port}`;
      const home = await newHome();
      const { code, stderr } = await runCli(['start', '--port', '0'], home, { AGENT_GATEWAY_PROBE_URLS: probe });
      expect(code).toBe(2);
      expect(stderr).toContain(`AGENT_GATEWAY_PROBE_URLS: ${probe} is not a loopback address`);
      expect(requests).toBe(0);
      await expect(readConfig(home)).rejects.toThrow(/ENOENT/);
    } finally {
      await new Promise((resolve) => outside.close(resolve));
    }
  });

  it('`init --detect` adds what it finds to an existing config and keeps the entries of the same name', async () => {
    const ollama = await startFakeLlm({ models: ['qwen3:8b'], ollamaTags: true });
    const openai = await startFakeLlm({ apiKey: OPENAI_KEY });
    fakes.push(ollama, openai);
    const home = await newHome();
    const existing = [
      '# my own notes, kept',
      'gateway:',
      '  tokens:',
      '    - { id: admin, secret: "init-detect-admin-secret-0123456789abcdef", scopes: ["*"] }',
      'providers:',
      '  ollama:',
      '    type: openai-compatible',
      '    baseUrl: http://127.0.0.1:9/v1   # mine',
      '    models: [{ id: mine }]',
      'agents:',
      '  default: { name: Mine, provider: ollama, model: mine }',
      '',
    ].join('\n');
    await writeFile(join(home, 'config.yaml'), existing);

    const result = await runCli(['init', '--detect'], home, {
      AGENT_GATEWAY_PROBE_URLS: ollama.url,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: openai.baseUrl,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Found Ollama at ${ollama.url}: qwen3:8b`);
    expect(result.stdout).toContain('Found OPENAI_API_KEY');
    expect(result.stdout).toContain('Kept providers.ollama, agents.default (already configured)');
    expect(result.stdout).toContain('Added providers.openai, embeddings (openai/text-embedding-3-small)');

    const text = await readConfig(home);
    expect(text).toContain('# my own notes, kept');
    expect(text).toContain('# mine');
    expect(text).not.toContain(OPENAI_KEY);
    expect(parse(text)).toMatchObject({
      providers: {
        ollama: { baseUrl: 'http://127.0.0.1:9/v1', models: [{ id: 'mine' }] },
        openai: { type: 'openai', apiKey: '${OPENAI_API_KEY}' },
      },
      agents: { default: { name: 'Mine', provider: 'ollama', model: 'mine' } },
      embeddings: { provider: 'openai', model: 'text-embedding-3-small' },
    });

    // Run again: nothing new to add, nothing changed.
    const again = await runCli(['init', '--detect'], home, {
      AGENT_GATEWAY_PROBE_URLS: ollama.url,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: openai.baseUrl,
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to add');
    expect(await readConfig(home)).toBe(text);
  }, 60_000);

  it('`init --detect` without a config writes a new one with the admin token and what it found', async () => {
    const ollama = await startFakeLlm({ models: ['qwen3:8b'], ollamaTags: true });
    fakes.push(ollama);
    const home = await newHome();
    const result = await runCli(['init', '--detect'], home, { AGENT_GATEWAY_PROBE_URLS: ollama.url });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}[A-Za-z0-9]{48}$/m);
    expect(parse(await readConfig(home))).toMatchObject({
      providers: { ollama: { baseUrl: ollama.baseUrl } },
      agents: { default: { provider: 'ollama', model: 'qwen3:8b' } },
    });
  });

  it('says when it found nothing, and the first start goes on with no provider', async () => {
    const { home, server } = await firstStart({});
    expect(server.stdout()).toMatch(/No LLM provider found/);
    expect(parse(await readConfig(home))).not.toHaveProperty('providers');
  });
});
