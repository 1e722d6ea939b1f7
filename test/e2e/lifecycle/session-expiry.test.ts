// sessions.idleTtlMs and runs.archiveAfterMs: an idle session expires (session:expired) and starts over on its next
// message, its expired conversation kept under its archive key; a finished sub-agent session is archived
// (session:sub_agent_archived) and leaves the default session.list, still readable by its owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame } from '../../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startGateway, type Harness } from '../../support/gateway-harness.js';
import { callRpc } from '../../support/http-client.js';

const KEY = 'default:carol:ws';
const payloadOf = (frame: ReadFrame | undefined) => JSON.parse(frame?.data ?? '{}') as Record<string, unknown>;

interface ListedSession {
  sessionKey: string;
  messageCount: number;
  expiredAt?: number;
  archivedAt?: number;
}

describe('session lifecycle: idle expiry and sub-agent archiving', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
      sessions: { idleTtlMs: 300, sweepIntervalMs: 50 },
      runs: { archiveAfterMs: 100 },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  const admin = (method: string, params: Record<string, unknown>) =>
    callRpc(gateway.url, gateway.tokens.admin, method, params);
  const listed = async (params: Record<string, unknown>): Promise<ListedSession[]> =>
    ((await admin('session.list', params)).result as { sessions: ListedSession[] }).sessions;

  it("expires an idle session on its owner's stream, lists it expired, and starts it over on the next message", async () => {
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.rpc}`);
    await events.next();
    const first = await callRpc(gateway.url, gateway.tokens.rpc, 'session.send', {
      key: KEY,
      message: 'remember the number 41',
    });
    expect(first.result).toMatchObject({ response: 'Echo: remember the number 41' });

    const frames = await events.until(
      (frame) => frame.event === 'session:expired' && payloadOf(frame).sessionKey === KEY,
      10_000,
    );
    events.close();
    expect(payloadOf(frames.at(-1))).toEqual({ sessionKey: KEY, ts: expect.any(Number) });
    const expired = (await listed({ kind: 'dm' })).find((session) => session.sessionKey === KEY);
    expect(expired).toMatchObject({ messageCount: 2, expiredAt: expect.any(Number) });

    const second = await callRpc(gateway.url, gateway.tokens.rpc, 'session.send', {
      key: KEY,
      message: 'which number was it?',
    });
    expect(second.result).toMatchObject({ response: 'Echo: which number was it?' });
    // A fresh conversation: the model is sent none of the expired one.
    const sent = JSON.stringify(llm.chatRequests().at(-1)?.body);
    expect(sent).toContain('which number was it?');
    expect(sent).not.toContain('remember the number 41');

    // The expired conversation is kept, still expired, under its archive key until its retention ends.
    const archiveKey = `${KEY}~expired-${expired?.expiredAt}`;
    const kept = (await listed({ kind: 'dm' })).find((session) => session.sessionKey === archiveKey);
    expect(kept).toMatchObject({ messageCount: 2, expiredAt: expired?.expiredAt });
    const exported = await admin('session.export', { session_key: archiveKey });
    expect((exported.result as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual([
      'remember the number 41',
      'Echo: remember the number 41',
    ]);
  });

  it('archives a finished sub-agent session after runs.archiveAfterMs, out of the default list, readable by its owner', async () => {
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await events.next();
    const spawned = await admin('session.spawn', { parentKey: 'default:admin:ws', task: 'summarise the plan' });
    const { runId, sessionKey } = spawned.result as { runId: string; sessionKey: string };

    const frames = await events.until(
      (frame) => frame.event === 'session:sub_agent_archived' && payloadOf(frame).runId === runId,
      10_000,
    );
    events.close();
    expect(payloadOf(frames.at(-1))).toEqual({ runId, sessionKey, ts: expect.any(Number) });
    // Archived only once its run had finished.
    const completed = frames.findIndex(
      (frame) => frame.event === 'session:sub_agent_completed' && payloadOf(frame).runId === runId,
    );
    expect(completed).toBeGreaterThanOrEqual(0);
    expect(completed).toBeLessThan(frames.length - 1);

    expect((await listed({ kind: 'sub-agent' })).map((session) => session.sessionKey)).not.toContain(sessionKey);
    expect((await listed({})).map((session) => session.sessionKey)).not.toContain(sessionKey);
    const archived = await listed({ kind: 'archived' });
    expect(archived.find((session) => session.sessionKey === sessionKey)).toMatchObject({
      archivedAt: expect.any(Number),
    });
    const history = await admin('session.history', { channelId: 'subagent' });
    expect((history.result as { messages: { content: string }[] }).messages.map((m) => m.content)).toContain(
      'summarise the plan',
    );
  });
});
