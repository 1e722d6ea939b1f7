// Heartbeat jobs end to end: a started gateway, the fake LLM, and a Telegram connection against the fake Bot API. An
// answer of HEARTBEAT_OK sends nothing; any other answer reaches the chat; a failing model or a channel that is down
// alerts; the scheduler:heartbeat_* events are on /api/events and each fire is in cron.runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame, type SseReader } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const TOKEN = '123456:test-token';

describe('e2e: heartbeat jobs delivering to a Telegram chat', () => {
  let llm: FakeLlm;
  let telegram: FakeTelegram;
  let harness: Harness;
  let events: SseReader;

  beforeAll(async () => {
    llm = await startFakeLlm();
    telegram = await startFakeTelegram({ token: TOKEN });
    const telegramConnection = {
      kind: 'telegram' as const,
      agentId: 'helper',
      token: TOKEN,
      apiBaseUrl: telegram.apiRoot,
      allow: { senders: ['77'] },
    };
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { helper: { name: 'Helper', provider: 'fake', model: 'fake-model' } },
      channels: { tg: telegramConnection, down: { ...telegramConnection, enabled: false } },
    });
    events = await openSse(`${harness.url}/api/events?token=${harness.tokens.admin}`);
    await events.next();
  });
  afterAll(async () => {
    events.close();
    await harness.close();
    await telegram.close();
    await llm.close();
  });

  const rpc = (method: string, params?: unknown) => callRpc(harness.url, harness.tokens.admin, method, params);
  const admin = async (method: string, params?: unknown) => {
    const response = await rpc(method, params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as Record<string, unknown>;
  };
  const payload = (frame: ReadFrame) => JSON.parse(frame.data ?? '{}') as Record<string, unknown>;

  /** Adds a heartbeat job, fires it now, and returns the scheduler:* frames of that fire, up to its completion. */
  async function fire(name: string, chat: { channelId: string; chatId: string }) {
    const job = await admin('cron.add', {
      name,
      agentId: 'helper',
      schedule: { kind: 'interval', everyMs: 3_600_000 },
      heartbeat: chat,
    });
    await admin('cron.run', { name });
    const frames = await events.until(
      (frame) => frame.event === 'scheduler:job_completed' && payload(frame).jobId === job.id,
      15_000,
    );
    const heartbeat = frames
      .filter((frame) => frame.event?.startsWith('scheduler:heartbeat') === true && payload(frame).jobId === job.id)
      .map((frame): Record<string, unknown> => ({ event: frame.event, ...payload(frame) }));
    const { runs } = (await admin('cron.runs', { jobName: name })) as { runs: Record<string, unknown>[] };
    return { jobId: String(job.id), heartbeat, runs };
  }

  const sentTo = (chatId: string) =>
    telegram.calls.filter((call) => call.method === 'sendMessage' && String(call.params.chat_id) === chatId);

  it('sends nothing when the agent answers HEARTBEAT_OK', async () => {
    llm.script({ text: 'HEARTBEAT_OK' });
    const { jobId, heartbeat, runs } = await fire('quiet', { channelId: 'tg', chatId: '900' });
    expect(heartbeat).toEqual([
      expect.objectContaining({ event: 'scheduler:heartbeat_check', jobId, agentId: 'helper' }),
    ]);
    expect(sentTo('900')).toEqual([]);
    expect(runs).toEqual([expect.objectContaining({ status: 'ok', summary: 'HEARTBEAT_OK' })]);
  });

  it('delivers any other answer to the chat and emits heartbeat_delivered', async () => {
    llm.script({ text: 'The nightly backup did not run.' });
    const { jobId, heartbeat, runs } = await fire('noisy', { channelId: 'tg', chatId: '901' });
    expect(heartbeat).toEqual([
      expect.objectContaining({ event: 'scheduler:heartbeat_check', jobId, agentId: 'helper' }),
      expect.objectContaining({ event: 'scheduler:heartbeat_delivered', jobId, agentId: 'helper' }),
    ]);
    expect(sentTo('901').map((call) => call.params.text)).toEqual(['The nightly backup did not run.']);
    expect(runs).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  it('alerts when the model fails, sending nothing', async () => {
    llm.script({ status: 400, errorMessage: 'the model refused' });
    const { heartbeat, runs } = await fire('broken', { channelId: 'tg', chatId: '902' });
    expect(heartbeat.map((entry) => entry.event)).toEqual(['scheduler:heartbeat_check', 'scheduler:heartbeat_alert']);
    expect(heartbeat[1]).toMatchObject({ agentId: 'helper', reason: expect.any(String) });
    expect(sentTo('902')).toEqual([]);
    expect(runs).toEqual([expect.objectContaining({ status: 'error' })]);
  });

  it('alerts when the channel is down: the run entry says the delivery failed', async () => {
    llm.script({ text: 'Something to say.' });
    const { heartbeat, runs } = await fire('unheard', { channelId: 'down', chatId: '903' });
    expect(heartbeat.map((entry) => entry.event)).toEqual(['scheduler:heartbeat_check', 'scheduler:heartbeat_alert']);
    expect(String(heartbeat[1]?.reason)).toMatch(/delivery to down failed/);
    expect(runs).toEqual([expect.objectContaining({ status: 'error', error: expect.stringMatching(/down failed/) })]);
  });

  it('refuses a heartbeat naming a channel that is not configured, naming the param', async () => {
    const response = await rpc('cron.add', {
      name: 'nowhere',
      schedule: { kind: 'interval', everyMs: 3_600_000 },
      heartbeat: { channelId: 'nope', chatId: '1' },
    });
    expect(response.error).toMatchObject({ code: -32602, data: { param: 'heartbeat.channelId' } });
  });
});
