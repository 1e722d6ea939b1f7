// Scheduled jobs end to end: a real gateway, a real WebSocket client and the fake LLM; a job fires and its run is listed.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callRpc } from '../support/http-client.js';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';
import { connectOpen, type Frame, type TestSocket } from '../support/ws-client.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
});
afterAll(async () => {
  await llm.close();
});

let harness: Harness | undefined;
let sockets: TestSocket[] = [];
afterEach(async () => {
  llm.reset();
  await Promise.all(sockets.map((socket) => socket.close()));
  sockets = [];
  await harness?.close();
  harness = undefined;
});

/** Longest a test waits for a job's fire to be recorded before it fails. */
const FIRE_WAIT_MS = 15_000;

async function resultOf(socket: TestSocket, method: string, params?: unknown): Promise<Record<string, unknown>> {
  const frame: Frame = await socket.call(method, params);
  if (frame.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(frame.error)}`);
  return frame.result as Record<string, unknown>;
}

async function waitForRuns(socket: TestSocket, jobName: string): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + FIRE_WAIT_MS;
  for (;;) {
    const { runs } = (await resultOf(socket, 'cron.runs', { jobName })) as { runs: Record<string, unknown>[] };
    if (runs.length > 0 || Date.now() > deadline) return runs;
    await sleep(100);
  }
}

describe('scheduled jobs over WebSocket', () => {
  it('fires a once job as an agent turn in its own session and lists the run in cron.runs', async () => {
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model', systemPrompt: 'Be brief.' } },
    });
    llm.script({ text: 'Daily report sent.' });
    const socket = await connectOpen(harness.wsUrl, { token: TOKENS.rpc });
    sockets.push(socket);
    const at = new Date(Date.now() + 1_000).toISOString();
    const job = await resultOf(socket, 'cron.add', {
      name: 'report',
      message: 'Send the daily report',
      schedule: { kind: 'once', at },
    });
    expect(job).toMatchObject({
      name: 'report',
      scheduleKind: 'once',
      at,
      tz: 'UTC',
      enabled: true,
      nextRunAtMs: Date.parse(at),
    });

    const runs = await waitForRuns(socket, 'report');
    expect(runs).toEqual([
      {
        ts: expect.any(Number),
        jobId: job.id,
        status: 'ok',
        durationMs: expect.any(Number),
        summary: 'Daily report sent.',
        rootRunId: expect.any(String),
      },
    ]);
    const chat = llm.requests.filter((request) => request.endpoint === 'openai-chat');
    expect(JSON.stringify(chat.at(-1)?.body)).toContain('Send the daily report');
    expect(await resultOf(socket, 'cron.status', { name: 'report' })).toMatchObject({
      nextRunAtMs: null,
      lastRunAtMs: runs[0]?.ts,
    });

    const admin = await connectOpen(harness.wsUrl, { token: TOKENS.admin });
    sockets.push(admin);
    const { sessions } = (await resultOf(admin, 'session.list', {})) as { sessions: { sessionKey: string }[] };
    expect(sessions.map((session) => session.sessionKey)).toContain(`default:rpc-client:cron:${String(job.id)}`);
  });

  it('records a gated skip without calling the model, and the fleet report counts it', async () => {
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
    const socket = await connectOpen(harness.wsUrl, { token: TOKENS.admin });
    sockets.push(socket);
    const at = new Date(Date.now() + 1_000).toISOString();
    await resultOf(socket, 'cron.add', {
      name: 'gated',
      message: 'Only when approvals were resolved',
      schedule: { kind: 'once', at },
      wakeGate: { kind: 'events', events: ['approval:resolved'] },
    });
    const runs = await waitForRuns(socket, 'gated');
    expect(runs).toEqual([
      expect.objectContaining({
        status: 'skipped',
        summary: 'wake-gate: skipped',
        estTurnsSaved: 1,
        toolCalls: 0,
        rootRunId: expect.any(String),
      }),
    ]);
    expect(llm.requests.filter((request) => request.endpoint === 'openai-chat')).toEqual([]);
    const fleet = await resultOf(socket, 'obs.fleet.health', {});
    expect(fleet.cronWakeGate).toMatchObject({ fires: { total: 1, skipped: 1, skipRate: 1 }, turnsSaved: 1 });
    expect(fleet.findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'cron_wake_gate_efficiency', count: 1 })]),
    );
  });

  it('a gate tool that finds work wakes the model, and obs.explain of the job session shows the cronWakeGate block', async () => {
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
    llm.script({ text: 'Checked.' });
    const socket = await connectOpen(harness.wsUrl, { token: TOKENS.admin });
    sockets.push(socket);
    const job = await resultOf(socket, 'cron.add', {
      name: 'clock-gated',
      message: 'Check the time',
      schedule: { kind: 'once', at: new Date(Date.now() + 1_000).toISOString() },
      wakeGate: { kind: 'tool', tool: 'current_time', args: {} },
    });
    const runs = await waitForRuns(socket, 'clock-gated');
    expect(runs).toEqual([expect.objectContaining({ status: 'ok', summary: 'Checked.', toolCalls: 1 })]);
    const report = await resultOf(socket, 'obs.explain', { sessionKey: `default:admin:cron:${String(job.id)}` });
    expect(report.cronWakeGate).toEqual({
      jobId: job.id,
      wake: true,
      durationMs: expect.any(Number),
      toolCalls: 1,
      estTurnsSaved: 0,
    });
  });

  it('fires as a cron run that run.get lists, and run.kill ends a fire the model is still answering', async () => {
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
    let release = (): void => {};
    llm.script({ text: 'Never sent.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const socket = await connectOpen(harness.wsUrl, { token: TOKENS.admin });
    sockets.push(socket);
    await resultOf(socket, 'cron.add', {
      name: 'slow',
      message: 'Take your time',
      schedule: { kind: 'once', at: new Date(Date.now() + 1_000).toISOString() },
    });
    await expect
      .poll(() => llm.requests.filter((request) => request.endpoint === 'openai-chat').length, {
        timeout: FIRE_WAIT_MS,
      })
      .toBe(1);

    const { runs: live } = (await resultOf(socket, 'run.list', { kind: 'cron' })) as {
      runs: { runId: string; status: string; kind: string }[];
    };
    expect(live).toEqual([expect.objectContaining({ kind: 'cron', status: 'running' })]);
    const runId = live[0]?.runId ?? '';
    expect(await resultOf(socket, 'run.kill', { runId })).toEqual({ runId, status: 'revoked' });
    const runs = await waitForRuns(socket, 'slow');
    release();
    expect(runs).toEqual([expect.objectContaining({ status: 'error', rootRunId: runId })]);
    expect(await resultOf(socket, 'run.get', { runId })).toMatchObject({ runId, kind: 'cron', status: 'revoked' });
  });

  it("counts a job's fire against its token's HTTP rate limit: a token that spent its window has the fire skipped, no model call", async () => {
    harness = await startGateway({
      gateway: { rateLimit: { maxRequests: 3, windowMs: 60_000 } },
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
    const socket = await connectOpen(harness.wsUrl, { token: TOKENS.rpc });
    sockets.push(socket);
    // Three POST /rpc calls of the rpc token fill its window: the job's fire is its fourth request.
    const at = new Date(Date.now() + 1_000).toISOString();
    expect(
      await callRpc(harness.url, TOKENS.rpc, 'cron.add', {
        name: 'limited',
        message: 'Report',
        schedule: { kind: 'once', at },
      }),
    ).toHaveProperty('result');
    for (let call = 0; call < 2; call += 1)
      expect(await callRpc(harness.url, TOKENS.rpc, 'cron.status', { name: 'limited' })).toHaveProperty('result');
    const runs = await waitForRuns(socket, 'limited');
    expect(runs).toEqual([
      expect.objectContaining({
        status: 'skipped',
        summary: expect.stringMatching(
          /^rate-limit: skipped, the owner token is over gateway\.rateLimit \(3 requests per 60000 ms\)/,
        ),
      }),
    ]);
    expect(llm.requests.filter((request) => request.endpoint === 'openai-chat')).toEqual([]);
    // A once job refused by the limit tries again when the token's window reopens.
    const { nextRunAtMs } = await resultOf(socket, 'cron.status', { name: 'limited' });
    expect(nextRunAtMs).toBeGreaterThan(Date.parse(at));
  });
});
