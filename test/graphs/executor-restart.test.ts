// A gateway that stops mid-run (a crash, or a graceful shutdown) leaves the graph run `orphaned`, and
// graph.run {resumeFrom} runs it on from its completed nodes.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { resolvePaths } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { ORPHANED_RUN_ERROR } from '../../src/store/index.js';
import { startFakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKEN_IDS } from '../support/gateway-harness.js';
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

interface StatusView {
  state: string;
  error?: string;
  resumedFrom?: string;
  nodes: { id: string; state: string; attempts: number; output?: unknown; error?: string }[];
}

/** A gateway running graph `name` (agent → approval → tool) up to its waiting approval; the agent answered `notes`. */
async function runToApproval(name: string, notes: string) {
  const llm = await startFakeLlm({ models: ['fake-model'] });
  cleanups.push(() => llm.close());
  const first = await startGateway({
    providers: {
      fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model', contextWindow: 8_000 }] },
    },
    agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model', tools: [] } },
    gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
  });
  cleanups.push(() => first.close());
  const { admin, rpc: owner } = first.tokens;
  await rpc(first.url, admin, 'graph.define', {
    definition: {
      name,
      vars: {},
      nodes: [
        { id: 'ask', type: 'agent', agentId: 'default', message: 'notes please' },
        { id: 'approve', type: 'approval', needs: ['ask'], summary: 'Ship {{nodes.ask.output}}?' },
        { id: 'stamp', type: 'tool', needs: ['approve'], tool: 'current_time', args: {} },
      ],
      output: '{{nodes.ask.output}}',
    },
  });
  llm.script({ text: notes });
  const { runId } = (await rpc(first.url, owner, 'graph.run', { name })) as { runId: string };
  const status = (url: string, id: string) => rpc(url, owner, 'graph.status', { runId: id }) as Promise<StatusView>;
  await approvalWaiting(status, first.url, runId);
  return { llm, first, admin, owner, runId, status };
}

type StatusOf = (url: string, runId: string) => Promise<StatusView>;

async function approvalWaiting(status: StatusOf, url: string, runId: string): Promise<void> {
  await expect
    .poll(async () => (await status(url, runId)).nodes.find((node) => node.id === 'approve')?.state, {
      timeout: 15_000,
    })
    .toBe('waiting');
}

/** Resumes `runId` on the gateway at `url`, approves its approval node and waits for the resumed run to complete. */
async function resumeAndApprove(
  url: string,
  tokens: { admin: string; owner: string },
  status: StatusOf,
  name: string,
  runId: string,
): Promise<StatusView> {
  const resumed = (await rpc(url, tokens.owner, 'graph.run', { name, resumeFrom: runId })) as { runId: string };
  await approvalWaiting(status, url, resumed.runId);
  const pending = (await rpc(url, tokens.admin, 'admin.approval.pending')) as {
    requests: { id: string; rootRunId?: string }[];
  };
  const request = pending.requests.find((entry) => entry.rootRunId === resumed.runId);
  await rpc(url, tokens.admin, 'admin.approval.resolve', { id: request?.id, approved: true });
  await expect.poll(async () => (await status(url, resumed.runId)).state, { timeout: 15_000 }).toBe('completed');
  return status(url, resumed.runId);
}

describe('a graph run across a restart', () => {
  it('is orphaned after the restart and resumes from its completed nodes', async () => {
    const { llm, first, admin, owner, runId, status } = await runToApproval('release', 'v2 notes');

    // A crash: the database as it is on disk right now, while the first process keeps its run waiting.
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

    const orphaned = await status(url, runId);
    expect(orphaned.state).toBe('orphaned');
    expect(orphaned.nodes.map((node) => [node.id, node.state])).toEqual([
      ['ask', 'completed'],
      ['approve', 'failed'],
      ['stamp', 'pending'],
    ]);
    expect(await rpc(url, admin, 'run.get', { runId })).toMatchObject({ kind: 'graph', status: 'orphaned' });

    const done = await resumeAndApprove(url, { admin, owner }, status, 'release', runId);
    expect(done).toMatchObject({ resumedFrom: runId, output: 'v2 notes' });
    // The agent node was not run again: one model call in all, made before the crash.
    expect(llm.chatRequests()).toHaveLength(1);
    expect(done.nodes.map((node) => [node.id, node.state])).toEqual([
      ['ask', 'completed'],
      ['approve', 'completed'],
      ['stamp', 'completed'],
    ]);
  });

  it('is orphaned, not cancelled, by a graceful shutdown and resumes after the next start', async () => {
    const { llm, first, admin, owner, runId, status } = await runToApproval('shutdown-release', 'v3 notes');

    // A graceful stop (SIGTERM): the same data dir is opened again afterwards.
    await first.app.close();
    const restarted = await createApp({
      config: first.config,
      paths: first.paths,
      log: createLogger({ level: 'silent' }),
      version: 'test',
      defaultWebDistPath: null,
    });
    cleanups.push(() => restarted.close());
    const { url } = await restarted.listen();

    const orphaned = await status(url, runId);
    expect(orphaned).toMatchObject({ state: 'orphaned', error: ORPHANED_RUN_ERROR });
    expect(orphaned.nodes.map((node) => [node.id, node.state, node.error])).toEqual([
      ['ask', 'completed', undefined],
      ['approve', 'failed', ORPHANED_RUN_ERROR],
      ['stamp', 'pending', undefined],
    ]);
    expect(await rpc(url, admin, 'run.get', { runId })).toMatchObject({
      kind: 'graph',
      status: 'failed',
      error: ORPHANED_RUN_ERROR,
    });
    // Neither cancelled nor orphaned is an outcome: learning observed nothing for the run's turn.
    const explained = (await rpc(url, admin, 'obs.explain', {
      sessionKey: `default:${TOKEN_IDS.rpc}:graph:${runId}.ask`,
      depth: 'full',
    })) as { learning?: { sources?: string[] } };
    expect(explained.learning?.sources ?? []).not.toContain('pipeline');

    expect(await resumeAndApprove(url, { admin, owner }, status, 'shutdown-release', runId)).toMatchObject({
      resumedFrom: runId,
      output: 'v3 notes',
    });
    expect(llm.chatRequests()).toHaveLength(1);
  });
});
