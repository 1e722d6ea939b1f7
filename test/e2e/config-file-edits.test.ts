// A hand edit of config.yaml applies live, as config.apply would, and lands in config history as "edited on disk";
// an invalid edit is refused and the running config stays.
import { readFile, writeFile } from 'node:fs/promises';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc, postRpc } from '../support/http-client.js';

const HAND_TOKEN = 'added-by-hand-0123456789abcdefghijkl';
const PING = { jsonrpc: '2.0', id: 1, method: 'system.ping' };

describe('config.yaml edited on disk', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway();
  });
  afterAll(async () => {
    await harness.close();
  });

  const editFile = async (edit: (document: Record<string, unknown>) => void) => {
    const document = parseYaml(await readFile(harness.paths.configPath, 'utf8')) as Record<string, unknown>;
    edit(document);
    await writeFile(harness.paths.configPath, stringifyYaml(document));
  };
  const agentIds = async () => {
    const { result } = await callRpc(harness.url, harness.tokens.admin, 'agents.list', {});
    return (result as { agents: string[] }).agents;
  };

  it('applies a valid edit at once (a new agent and a new token) and commits it as "edited on disk"', async () => {
    await editFile((document) => {
      const agents = (document.agents ?? {}) as Record<string, unknown>;
      agents['by-hand'] = { name: 'Written by hand' };
      document.agents = agents;
      const gateway = document.gateway as { tokens: unknown[] };
      gateway.tokens.push({ id: 'by-hand', secret: HAND_TOKEN, scopes: ['rpc'] });
    });
    await vi.waitFor(async () => expect(await agentIds()).toContain('by-hand'), { timeout: 5_000, interval: 50 });
    expect((await postRpc(harness.url, PING, HAND_TOKEN)).status).toBe(200);
    const { result } = await callRpc(harness.url, harness.tokens.admin, 'config.history', {});
    expect((result as { entries: { message: string }[] }).entries[0]?.message).toBe('edited on disk');
    // The secret left the file for secrets.yaml before it was committed.
    expect(await readFile(harness.paths.configPath, 'utf8')).not.toContain(HAND_TOKEN);
  });

  it('refuses an invalid edit: the running config stays and nothing is committed', async () => {
    const before = (await callRpc(harness.url, harness.tokens.admin, 'config.history', {})).result;
    await editFile((document) => {
      (document.gateway as Record<string, unknown>).maxBatchSize = 'many';
      const agents = document.agents as Record<string, unknown>;
      delete agents['by-hand'];
    });
    // Give the watcher its debounce and more; the agent written by hand must still be there.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await agentIds()).toContain('by-hand');
    expect((await callRpc(harness.url, harness.tokens.admin, 'config.history', {})).result).toEqual(before);
  });
});
