// The approval history over a started gateway: a Deny with a reason is announced with it, listed by
// admin.approval.history (who, when, decision, why) newest first by cursor, and shown as the turn's approval span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { TestSocket } from '../support/ws-client.js';
import { startApprovalGateway, type ApprovalGateway } from './approval-gateway.js';
import { admin, keyOf, resultOf, startTurn, waitForPending } from './approval-support.js';

interface Decision {
  id: string;
  toolName: string;
  sessionKey: string;
  traceId: string;
  decision: string;
  resolvedBy: string;
  resolvedAt: number;
  waitMs: number;
  reason: string | null;
}

describe('approval history', () => {
  let llm: FakeLlm;
  let gw: ApprovalGateway;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    gw = await startApprovalGateway(llm);
  });
  afterAll(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.close()));
    await gw?.close();
    await llm?.close();
  });

  it('keeps each decision with who, when and why, newest first, paged by cursor', async () => {
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'fine' });
    const approvedTurn = startTurn(gw, 'first', 'what time is it', sockets);
    const [approved] = await waitForPending(gw, 1);
    await admin(gw, 'admin.approval.resolve', { id: approved?.id, approved: true });
    expect(resultOf(await approvedTurn).finishReason).toBe('stop');

    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'denied then' });
    const deniedTurn = startTurn(gw, 'second', 'and now?', sockets);
    const [denied] = await waitForPending(gw, 1);
    await admin(gw, 'admin.approval.resolve', { id: denied?.id, approved: false, reason: 'not on a Sunday' });
    await deniedTurn;

    const resolvedEvent = gw
      .events()
      .find((event) => event.name === 'approval:resolved' && event.payload.requestId === denied?.id);
    expect(resolvedEvent?.payload).toMatchObject({ approved: false, resolvedBy: 'admin', reason: 'not on a Sunday' });

    const first = (await admin(gw, 'admin.approval.history', { limit: 1 })).result as {
      decisions: Decision[];
      nextCursor: string | null;
    };
    expect(first.decisions).toEqual([
      expect.objectContaining({
        id: denied?.id,
        toolName: 'current_time',
        sessionKey: keyOf('second'),
        decision: 'denied',
        resolvedBy: 'admin',
        reason: 'not on a Sunday',
        resolvedAt: expect.any(Number),
        waitMs: expect.any(Number),
      }),
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await admin(gw, 'admin.approval.history', { limit: 1, cursor: first.nextCursor })).result as {
      decisions: Decision[];
    };
    expect(second.decisions).toEqual([
      expect.objectContaining({ id: approved?.id, decision: 'approved', resolvedBy: 'admin', reason: null }),
    ]);

    const trace = (await admin(gw, 'obs.trace.get', { traceId: first.decisions[0]?.traceId })).result as {
      spans: { kind: string; name: string; outcome: string; reason?: string; resolvedBy?: string }[];
    };
    expect(trace.spans.filter((span) => span.kind === 'approval')).toEqual([
      expect.objectContaining({
        name: 'current_time',
        outcome: 'denied',
        resolvedBy: 'admin',
        reason: 'not on a Sunday',
        durationMs: expect.any(Number),
      }),
    ]);
  });
});
