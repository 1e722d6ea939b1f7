// A restart that finds an orchestrate run unfinished marks it orphaned (the existing orphan sweep), as run.list shows.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { resolvePaths } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { startFakeLlm } from '../support/fake-llm-server.js';
import { startGateway } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function rpc(url: string, token: string, method: string, params: unknown = {}): Promise<unknown> {
  const response = await callRpc(url, token, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result;
}

const orchestrateRuns = async (url: string, token: string) =>
  ((await rpc(url, token, 'run.list', { kind: 'orchestrate' })) as { runs: { runId: string; status: string }[] }).runs;

describe('a restart that finds an orchestrate run unfinished', () => {
  it('marks the run orphaned', async () => {
    const llm = await startFakeLlm({ models: ['fake-model'] });
    cleanups.push(() => llm.close());
    const first = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8_000, maxTokens: 512 }],
        },
      },
      agents: {
        default: {
          name: 'Assistant',
          provider: 'fake',
          model: 'fake-model',
          tools: ['orchestrate', 'current_time'],
          requireApproval: [{ tool: 'current_time' }],
        },
      },
    });
    cleanups.push(() => first.close());
    const admin = first.tokens.admin;
    // The script's call waits for an operator, so the run is running when the process "dies" below.
    llm.script({
      toolCalls: [
        { name: 'orchestrate', arguments: { script: 'return await tools.current_time({});', timeoutMs: 60_000 } },
      ],
    });
    void rpc(first.url, admin, 'agent.execute', {
      message: 'what time is it',
      sessionKey: { tenantId: 'default', userId: 'ops', channelId: 'test', peerId: 'orphan' },
    }).catch(() => undefined);
    await expect
      .poll(async () => (await orchestrateRuns(first.url, admin)).map((run) => run.status), {
        timeout: 15_000,
        interval: 200,
      })
      .toEqual(['running']);
    const [running] = await orchestrateRuns(first.url, admin);

    // A crash: the data dir as it is on disk right now, copied while the first process keeps running.
    const crashedDir = await mkdtemp(join(tmpdir(), 'agent-gateway-crashed-'));
    cleanups.push(() => rm(crashedDir, { recursive: true, force: true }));
    const source = new Database(first.paths.databasePath, { readonly: true });
    await source.backup(join(crashedDir, 'gateway.db'));
    source.close();
    const restarted = await createApp({
      config: first.config,
      paths: resolvePaths({ dataDir: crashedDir }, {}),
      log: createLogger({ level: 'silent' }),
      version: 'test',
      defaultWebDistPath: null,
    });
    cleanups.push(() => restarted.close());
    const { url } = await restarted.listen();
    expect(await orchestrateRuns(url, admin)).toEqual([
      expect.objectContaining({ runId: running?.runId, status: 'orphaned' }),
    ]);
  });
});
