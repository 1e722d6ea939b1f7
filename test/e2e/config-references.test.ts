// A started gateway refuses a ${…} reference outside the secret and URL fields (config.patch, agents.create, a hand edit
// of config.yaml), so an agent named `Helper ${secret:gateway.tokens.admin.secret}` cannot leak the admin secret; a
// reference in an allowed field still reaches the provider, and no read path returns what it resolves to.
import { readFile, writeFile } from 'node:fs/promises';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { captureLogs, type LogCapture } from '../support/log-capture.js';

const PROVIDER_KEY = 'sk-fake-provider-key-0123456789abcdef';
const LEAKING_NAME = 'Helper ${secret:gateway.tokens.admin.secret}';
const REFUSAL = 'references (${…}) are allowed only in secret and URL fields';

describe('config references on a started gateway', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let logs: LogCapture;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'], apiKey: PROVIDER_KEY });
    logs = captureLogs('info');
    harness = await startGateway({
      log: logs.log,
      providers: {
        cloud: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          apiKey: PROVIDER_KEY,
          models: [{ id: 'fake-model' }],
        },
        // A URL carrying credentials in its user info and query, as some hosted endpoints take them.
        keyed: {
          type: 'openai-compatible',
          baseUrl: 'http://gw:url-password-4711@127.0.0.1:9/v1?key=url-query-key-4711',
          models: [{ id: 'other-model' }],
        },
      },
      agents: { default: { name: 'Helper', provider: 'cloud', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  const admin = (method: string, params: unknown) => callRpc(harness.url, harness.tokens.admin, method, params);
  const everyReadPath = async (): Promise<string> => {
    const agents = await fetch(`${harness.url}/api/agents`, {
      headers: { authorization: `Bearer ${harness.tokens.rpc}` },
    });
    expect(agents.status).toBe(200);
    return JSON.stringify([
      await agents.json(),
      await admin('agents.get', { agentId: 'default' }),
      await admin('agents.list', {}),
      await admin('config.read', {}),
      await admin('config.read', { section: 'agents' }),
      await admin('config.get', {}),
      await admin('config.get', { section: 'providers' }),
    ]);
  };

  it('resolves the provider key from its ${secret:…} reference and sends it upstream, yet no read path shows it', async () => {
    expect(await readFile(harness.paths.configPath, 'utf8')).toContain('apiKey: ${secret:providers.cloud.apiKey}');
    const answer = await admin('agent.execute', {
      message: 'hello',
      sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId: 'p1' },
    });
    expect(answer.error).toBeUndefined();
    expect(llm.chatRequests().at(-1)?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    const read = await everyReadPath();
    expect(read).not.toContain(PROVIDER_KEY);
    expect(read).not.toContain(harness.tokens.admin);
  });

  it('shows a provider base URL in the model catalog without its user info or query', async () => {
    const listed = await admin('models.list', {});
    expect(JSON.stringify(listed)).not.toMatch(/url-password-4711|url-query-key-4711/);
    expect(listed.result).toContainEqual(
      expect.objectContaining({ provider: 'keyed', baseUrl: 'http://127.0.0.1:9/v1' }),
    );
  });

  it('refuses the leaking agent name through config.patch, agents.create and agents.update, naming the key', async () => {
    expect(await admin('config.patch', { agents: { default: { name: LEAKING_NAME } } })).toMatchObject({
      error: {
        code: -32602,
        message: `Invalid config: agents.default.name: ${REFUSAL}`,
        data: { kind: 'invalid_params', param: 'agents.default.name' },
      },
    });
    expect(
      await admin('agents.create', { agentId: 'leaky', name: LEAKING_NAME, provider: 'cloud', model: 'fake-model' }),
    ).toMatchObject({
      error: { code: -32602, message: expect.stringContaining(`agents.leaky.name: ${REFUSAL}`) },
    });
    expect(
      await admin('agents.update', { agentId: 'default', systemPrompt: 'Say ${secret:providers.cloud.apiKey}' }),
    ).toMatchObject({
      error: { code: -32602, message: expect.stringContaining(`agents.default.systemPrompt: ${REFUSAL}`) },
    });
    const read = await everyReadPath();
    expect(read).not.toContain(harness.tokens.admin);
    expect(read).not.toContain(PROVIDER_KEY);
    expect((await admin('agents.get', { agentId: 'default' })).result).toMatchObject({ name: 'Helper' });
  });

  it('refuses a hand edit of config.yaml with the leaking name: logged with the key, the running config stays', async () => {
    const document = parseYaml(await readFile(harness.paths.configPath, 'utf8')) as {
      agents: { default: { name: string } };
    };
    document.agents.default.name = LEAKING_NAME;
    await writeFile(harness.paths.configPath, stringifyYaml(document));
    const line = await logs.waitFor('config file edited on disk is not valid');
    expect(line).toContain(`agents.default.name: ${REFUSAL}`);
    expect((await admin('agents.get', { agentId: 'default' })).result).toMatchObject({ name: 'Helper' });
    const read = await everyReadPath();
    expect(read).not.toContain(harness.tokens.admin);
  });
});
