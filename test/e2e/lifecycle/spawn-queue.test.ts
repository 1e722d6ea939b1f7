// runs.spawnQueue: a spawn past runs.maxRunning waits (session:sub_agent_spawn_queued, status queued) and starts with
// the same run id once a running one ends; past the queue's bound it is refused as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame } from '../../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startGateway, type Harness } from '../../support/gateway-harness.js';
import { callRpc } from '../../support/http-client.js';

const PARENT = 'default:admin:ws';
const payloadOf = (frame: ReadFrame | undefined) => JSON.parse(frame?.data ?? '{}') as Record<string, unknown>;

describe('sub-agent spawn queue', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
      runs: { maxRunning: 1, spawnQueue: 1 },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  const spawn = (task: string) =>
    callRpc(gateway.url, gateway.tokens.admin, 'session.spawn', { parentKey: PARENT, task });

  it('queues the spawn past the limit, refuses the one past the queue, and starts the queued one when a slot frees', async () => {
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await events.next();
    let release: () => void = () => undefined;
    llm.script({ text: 'first done', heldUntil: new Promise<void>((resolve) => (release = resolve)) });

    const first = await spawn('first');
    expect(first.result).toMatchObject({ status: 'running' });
    const second = await spawn('second');
    expect(second.result).toMatchObject({ status: 'queued' });
    const { runId } = second.result as { runId: string; sessionKey: string };
    const third = await spawn('third');
    expect(third.error).toMatchObject({ data: { kind: 'rate_limited' } });

    const queued = await events.until((frame) => frame.event === 'session:sub_agent_spawn_queued');
    expect(payloadOf(queued.at(-1))).toEqual({ runId, parentKey: PARENT, ts: expect.any(Number) });

    release();
    const started = await events.until(
      (frame) => frame.event === 'session:sub_agent_completed' && payloadOf(frame).runId === runId,
      15_000,
    );
    events.close();
    expect(started.map((frame) => [frame.event, payloadOf(frame).runId])).toEqual(
      expect.arrayContaining([
        ['session:sub_agent_spawn_rejected', undefined],
        ['session:sub_agent_spawn_started', runId],
      ]),
    );
    const status = await callRpc(gateway.url, gateway.tokens.admin, 'session.run_status', { run_id: runId });
    expect(status.result).toMatchObject({ status: 'completed', response: 'Echo: second' });
  });
});
