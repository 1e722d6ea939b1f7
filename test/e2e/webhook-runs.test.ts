// Webhook deliveries are runs: the runId a delivery is answered with is found by run.get, run.list {kind: webhook} and
// an admin's session.run_status, running while the turn runs, then completed or failed; a restart leaves none running.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/obs/logger.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc, injectRpc } from '../support/http-client.js';

const SECRET = 'webhook-secret-0123456789';

const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');

describe('e2e: webhook runs in the run table', () => {
  let llm: FakeLlm;
  let harness: Harness;
  const options = () => ({
    gateway: { webhook: { secret: SECRET, agentId: 'hooks' } },
    providers: { fake: { type: 'openai-compatible' as const, baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
    agents: { hooks: { name: 'Hook handler', provider: 'fake', model: 'fake-model' } },
  });
  beforeAll(async () => {
    llm = await startFakeLlm();
    harness = await startGateway(options());
  });
  afterAll(async () => {
    await harness.close();
    await llm.close();
  });

  async function deliver(url: string, event: string): Promise<{ runId: string; sessionKey: string }> {
    const body = JSON.stringify({ event, source: 'ci', data: { build: 7 } });
    const response = await fetch(`${url}/hooks/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': sign(body) },
      body,
    });
    expect(response.status).toBe(202);
    return (await response.json()) as { runId: string; sessionKey: string };
  }
  const runGet = async (runId: string) =>
    (await callRpc(harness.url, harness.tokens.admin, 'run.get', { runId })).result as
      Record<string, unknown> | undefined;

  it('records a delivery as a webhook run: running while held, then completed, found by run.get, run.list and session.run_status', async () => {
    let release = (): void => {};
    llm.script({ text: 'Deploy handled.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const { runId, sessionKey } = await deliver(harness.url, 'deploy.finished');
    await vi.waitFor(
      async () =>
        expect(await runGet(runId)).toMatchObject({
          runId,
          kind: 'webhook',
          status: 'running',
          sessionKey,
          agentId: 'hooks',
          rootRunId: runId,
        }),
      { timeout: 5_000, interval: 50 },
    );
    release();
    await vi.waitFor(
      async () => expect(await runGet(runId)).toMatchObject({ status: 'completed', response: 'Deploy handled.' }),
      { timeout: 5_000, interval: 50 },
    );

    const listed = (await callRpc(harness.url, harness.tokens.admin, 'run.list', { kind: 'webhook' })).result as {
      runs: { runId: string; kind: string }[];
    };
    expect(listed.runs.map((run) => run.runId)).toContain(runId);
    expect(listed.runs.every((run) => run.kind === 'webhook')).toBe(true);
    // Webhook sessions are owned by no token: an admin sees the run, another token does not.
    expect(
      (await callRpc(harness.url, harness.tokens.admin, 'session.run_status', { run_id: runId })).result,
    ).toMatchObject({ runId, status: 'completed' });
    expect(await callRpc(harness.url, harness.tokens.rpc, 'session.run_status', { run_id: runId })).toMatchObject({
      error: { data: { kind: 'not_found' } },
    });
  });

  it('records a delivery whose turn fails as failed, with the error', async () => {
    llm.script({ status: 400, errorMessage: 'model refused' });
    const { runId } = await deliver(harness.url, 'deploy.failed');
    await vi.waitFor(
      async () =>
        expect(await runGet(runId)).toMatchObject({
          runId,
          kind: 'webhook',
          status: 'failed',
          error: expect.any(String),
        }),
      { timeout: 5_000, interval: 50 },
    );
  });

  it('leaves no webhook run running after a restart', async () => {
    const first = await startGateway(options());
    llm.script({ text: 'Never delivered.', heldUntil: new Promise<void>(() => undefined) });
    const { runId } = await deliver(first.url, 'deploy.held');
    await vi.waitFor(
      async () =>
        expect((await callRpc(first.url, first.tokens.admin, 'run.get', { runId })).result).toMatchObject({
          status: 'running',
        }),
      { timeout: 5_000, interval: 50 },
    );
    await first.app.close();
    const restarted = await createApp({
      config: first.config,
      paths: first.paths,
      log: createLogger({ level: 'silent' }),
      version: 'test',
      defaultWebDistPath: null,
    });
    try {
      const run = (await injectRpc(restarted, first.tokens.admin, 'run.get', { runId })).result as {
        status: string;
        error?: string;
      };
      expect(run).toMatchObject({ runId, kind: 'webhook', error: expect.any(String) });
      expect(['failed', 'orphaned']).toContain(run.status);
    } finally {
      await restarted.close();
      await first.close();
    }
  });
});
