// Approvals end to end: the fake LLM calls a gated tool in a turn over a real WebSocket; an operator decides over /rpc.
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callRpc } from '../support/http-client.js';
import { captureLogs } from '../support/log-capture.js';
import type { TestSocket } from '../support/ws-client.js';
import { startApprovalGateway, type ApprovalGateway, type ApprovalGatewayOptions } from './approval-gateway.js';
import { admin, keyOf, pending, resultOf, startTurn, toolResultsSent, waitForPending } from './approval-support.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
});
afterAll(async () => {
  await llm.close();
});

const gateways: ApprovalGateway[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await Promise.all(gateways.splice(0).map((gw) => gw.close()));
  llm.reset();
});

async function gateway(options: ApprovalGatewayOptions = {}): Promise<ApprovalGateway> {
  const gw = await startApprovalGateway(llm, options);
  gateways.push(gw);
  return gw;
}

const callTime = (args: Record<string, unknown> = {}) => ({ toolCalls: [{ name: 'current_time', arguments: args }] });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('a gated tool call', () => {
  it('waits for an operator, runs once approved, and announces and audits the decision without the arguments', async () => {
    const logs = captureLogs('info');
    const gw = await gateway({ log: logs.log });
    llm.script(callTime({}));
    const reply = startTurn(gw, 'approve', 'what time is it', sockets);

    const [request] = await waitForPending(gw, 1);
    expect(request).toMatchObject({
      agentId: 'default',
      sessionKey: keyOf('approve'),
      toolName: 'current_time',
      args: {},
      argsDigest: sha256('{}'),
    });
    expect(request?.expiresAt).toEqual(expect.any(Number));
    // The model has not been called again: the tool call is still waiting.
    expect(llm.chatRequests()).toHaveLength(1);

    const resolved = await admin(gw, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect(resolved.result).toMatchObject({ id: request?.id, approved: true, status: 'approved', resolvedBy: 'admin' });
    expect(resultOf(await reply).finishReason).toBe('stop');
    expect(toolResultsSent(llm, 'what time is it')).toEqual([expect.stringMatching(/"iso":"\d{4}-/)]);
    expect(await pending(gw)).toEqual([]);

    const events = gw.events().filter((event) => event.name.startsWith('approval:'));
    expect(events.map((event) => event.payload)).toEqual([
      {
        agentId: 'default',
        sessionKey: keyOf('approve'),
        requestId: request?.id,
        toolName: 'current_time',
        argsDigest: sha256('{}'),
      },
      {
        agentId: 'default',
        sessionKey: keyOf('approve'),
        requestId: request?.id,
        toolName: 'current_time',
        approved: true,
        resolvedBy: 'admin',
      },
    ]);
    const audit = await admin(gw, 'obs.audit.query', { kind: 'approval' });
    expect(audit.result).toMatchObject({
      rows: [
        {
          kind: 'approval',
          action: 'approval.resolve',
          actor: 'admin',
          outcome: 'approved',
          refs: expect.stringContaining('"cause":"operator"'),
        },
      ],
    });
    expect(
      logs.lines.some((line) => line.includes('tool call waits for approval') && line.includes(sha256('{}'))),
    ).toBe(true);
  });

  it('gets the denial as a tool error; the same call is then denied from the cache, other arguments or sessions ask again', async () => {
    const logs = captureLogs('debug');
    const gw = await gateway({ log: logs.log });
    const secret = { zone: 'SECRET-ZONE-1' };
    llm.script(callTime(secret));
    const first = startTurn(gw, 'deny', 'first try', sockets);
    const [request] = await waitForPending(gw, 1);
    expect(request?.argsDigest).toBe(sha256('{"zone":"SECRET-ZONE-1"}'));
    await admin(gw, 'admin.approval.resolve', { id: request?.id, approved: false, reason: 'not on a Sunday' });
    await first;
    expect(toolResultsSent(llm, 'first try')).toEqual([
      'Error: current_time was denied: denied by admin: not on a Sunday',
    ]);

    // The same tool with the same arguments (keys in another order digest the same) in the same session: no new request.
    llm.script(callTime(secret));
    await startTurn(gw, 'deny', 'second try', sockets);
    expect(toolResultsSent(llm, 'second try')).toEqual([
      expect.stringContaining('the same call was denied by admin: not on a Sunday (cached denial)'),
    ]);

    // Other arguments in the same session are a different call: the operator is asked again.
    llm.script(callTime({ zone: 'SECRET-ZONE-2' }));
    const third = startTurn(gw, 'deny', 'third try', sockets);
    const [again] = await waitForPending(gw, 1);
    expect(again?.argsDigest).toBe(sha256('{"zone":"SECRET-ZONE-2"}'));
    await admin(gw, 'admin.approval.resolve', { id: again?.id, approved: true });
    await third;
    expect(toolResultsSent(llm, 'third try')[0]).not.toContain('was denied');

    // The denied arguments in another session ask again as well.
    llm.script(callTime(secret));
    const elsewhere = startTurn(gw, 'other-session', 'fourth try', sockets);
    const [fromOther] = await waitForPending(gw, 1);
    expect(fromOther?.sessionKey).toBe(keyOf('other-session'));
    await admin(gw, 'admin.approval.resolve', { id: fromOther?.id, approved: false });
    await elsewhere;

    const published = JSON.stringify(gw.events());
    expect(published).toContain('approval:requested');
    expect(published).not.toContain('SECRET-ZONE');
    expect(logs.lines.join('\n')).not.toContain('SECRET-ZONE');
    const audit = await admin(gw, 'obs.audit.query', { kind: 'approval' });
    expect(JSON.stringify(audit.result)).not.toContain('SECRET-ZONE');
    // Newest first.
    expect((audit.result as { rows: { outcome: string }[] }).rows.map((row) => row.outcome)).toEqual([
      'denied',
      'approved',
      'denied',
    ]);
  });

  it('session.reset and admin.approval.clearDenialCache forget cached denials', async () => {
    const gw = await gateway();
    const denyOnce = async (peerId: string, message: string) => {
      llm.script(callTime({ zone: 'x' }));
      const reply = startTurn(gw, peerId, message, sockets);
      const [request] = await waitForPending(gw, 1);
      await admin(gw, 'admin.approval.resolve', { id: request?.id, approved: false });
      await reply;
    };
    await denyOnce('reset', 'deny me');
    await denyOnce('kept', 'deny me too');

    const reset = await admin(gw, 'session.reset', { session_key: keyOf('reset') });
    expect(reset.result).toMatchObject({ sessionKey: keyOf('reset'), reset: true });
    llm.script(callTime({ zone: 'x' }));
    const asked = startTurn(gw, 'reset', 'after reset', sockets);
    const [request] = await waitForPending(gw, 1);
    expect(request?.sessionKey).toBe(keyOf('reset'));
    await admin(gw, 'admin.approval.resolve', { id: request?.id, approved: true });
    await asked;

    // The other session's denial survived the reset; clearDenialCache drops it.
    llm.script(callTime({ zone: 'x' }));
    await startTurn(gw, 'kept', 'still cached', sockets);
    expect(toolResultsSent(llm, 'still cached')).toEqual([expect.stringContaining('(cached denial)')]);
    expect((await admin(gw, 'admin.approval.clearDenialCache')).result).toEqual({ cleared: true });
    llm.script(callTime({ zone: 'x' }));
    const cleared = startTurn(gw, 'kept', 'after clearing', sockets);
    const [fresh] = await waitForPending(gw, 1);
    await admin(gw, 'admin.approval.resolve', { id: fresh?.id, approved: true });
    await cleared;
  });

  it('is denied when approvals.timeoutMs elapses, and the ended request can no longer be resolved', async () => {
    const gw = await gateway({ approvals: { timeoutMs: 200 } });
    llm.script(callTime({}));
    const reply = startTurn(gw, 'timeout', 'too slow', sockets);
    expect(resultOf(await reply).finishReason).toBe('stop');
    const requested = gw.events().find((event) => event.name === 'approval:requested');
    const request = requested?.name === 'approval:requested' ? { id: requested.payload.requestId } : undefined;
    expect(request?.id).toEqual(expect.any(String));
    expect(toolResultsSent(llm, 'too slow')).toEqual(['Error: current_time was denied: no decision within 200 ms']);
    expect(await pending(gw)).toEqual([]);
    const late = await admin(gw, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect(late.error).toMatchObject({
      code: -32603,
      message: `Approval request ${request?.id} is already denied`,
      data: { kind: 'conflict', param: 'id' },
    });
    const resolvedEvent = gw.events().find((event) => event.name === 'approval:resolved');
    expect(resolvedEvent?.payload).toMatchObject({ approved: false, resolvedBy: 'system:timeout' });
  });

  it('waits until someone decides when approvals.timeoutMs is 0', async () => {
    const gw = await gateway({ approvals: { timeoutMs: 0 } });
    llm.script(callTime({}));
    const reply = startTurn(gw, 'forever', 'take your time', sockets);
    const [request] = await waitForPending(gw, 1);
    expect(request?.expiresAt).toBeNull();
    // Another turn runs from start to end meanwhile; the first call is still waiting, not denied.
    llm.script({ text: 'meanwhile' });
    expect(resultOf(await startTurn(gw, 'other', 'unrelated', sockets)).response).toBe('meanwhile');
    expect((await pending(gw)).map((entry) => entry.id)).toEqual([request?.id]);
    await admin(gw, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect(resultOf(await reply).finishReason).toBe('stop');
    expect(toolResultsSent(llm, 'take your time')).toEqual([expect.stringMatching(/"iso"/)]);
  });

  it('matches argument patterns: only calls whose arguments match the rule wait', async () => {
    const gw = await gateway({ requireApproval: [{ tool: 'current_time', args: { zone: 'Europe/*' } }] });
    llm.script(callTime({}));
    await startTurn(gw, 'pattern', 'no zone', sockets);
    expect(toolResultsSent(llm, 'no zone')).toEqual([expect.stringMatching(/"iso"/)]);
    llm.script(callTime({ zone: 'Europe/Paris' }));
    const gated = startTurn(gw, 'pattern', 'paris', sockets);
    const [request] = await waitForPending(gw, 1);
    expect(request?.args).toEqual({ zone: 'Europe/Paris' });
    await admin(gw, 'admin.approval.resolve', { id: request?.id, approved: false });
    await gated;
    expect(toolResultsSent(llm, 'paris')).toEqual(['Error: current_time was denied: denied by admin']);
  });
});

describe('admin.approval.resolveAll', () => {
  it('without sessionKey resolves the requests of every session as the operator; with one, only that session', async () => {
    const gw = await gateway();
    llm.script(callTime({ n: 1 }));
    const a = startTurn(gw, 'session-a', 'turn a', sockets);
    await waitForPending(gw, 1);
    llm.script(callTime({ n: 2 }));
    const b = startTurn(gw, 'session-b', 'turn b', sockets);
    const both = await waitForPending(gw, 2);

    const all = await admin(gw, 'admin.approval.resolveAll', { approved: true });
    expect(all.result).toEqual({ resolved: 2, requestIds: both.map((entry) => entry.id) });
    await Promise.all([a, b]);
    expect(toolResultsSent(llm, 'turn a')[0]).not.toContain('denied');
    expect(toolResultsSent(llm, 'turn b')[0]).not.toContain('denied');
    const resolvedBy = gw
      .events()
      .filter((event) => event.name === 'approval:resolved')
      .map((event) => event.payload);
    expect(resolvedBy).toMatchObject([
      { resolvedBy: 'operator', approved: true },
      { resolvedBy: 'operator', approved: true },
    ]);

    llm.script(callTime({ n: 3 }));
    const c = startTurn(gw, 'session-c', 'turn c', sockets);
    await waitForPending(gw, 1);
    llm.script(callTime({ n: 4 }));
    const d = startTurn(gw, 'session-d', 'turn d', sockets);
    const [, onD] = await waitForPending(gw, 2);
    const one = await admin(gw, 'admin.approval.resolveAll', {
      approved: false,
      sessionKey: keyOf('session-d'),
      approvedBy: 'night-shift',
      reason: 'later',
    });
    expect(one.result).toEqual({ resolved: 1, requestIds: [onD?.id] });
    await d;
    expect(toolResultsSent(llm, 'turn d')).toEqual(['Error: current_time was denied: denied by night-shift: later']);
    expect((await pending(gw)).map((entry) => entry.sessionKey)).toEqual([keyOf('session-c')]);
    expect((await admin(gw, 'admin.approval.resolveAll', { approved: false })).result).toMatchObject({ resolved: 1 });
    await c;
    const audit = await admin(gw, 'obs.audit.query', { kind: 'approval' });
    expect((audit.result as { rows: { actor: string }[] }).rows.map((row) => row.actor)).toEqual([
      'operator',
      'night-shift',
      'operator',
      'operator',
    ]);
  });
});

describe('admin.approval.* params, errors and scope', () => {
  it('answers bad params with -32602, unknown ids with not_found, and refuses rpc tokens', async () => {
    const gw = await gateway();
    const call = (method: string, params?: unknown, token = gw.tokens.admin) => callRpc(gw.url, token, method, params);
    expect((await call('admin.approval.pending', { sessionKey: 'x' })).error).toMatchObject({ code: -32602 });
    expect((await call('admin.approval.pending')).result).toEqual({ requests: [] });
    expect((await call('admin.approval.resolve', { id: 'nope' })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('approved'),
    });
    expect((await call('admin.approval.resolve', { id: 'nope', approved: 'yes' })).error).toMatchObject({
      code: -32602,
    });
    expect((await call('admin.approval.resolve', { id: 'nope', approved: true, extra: 1 })).error).toMatchObject({
      code: -32602,
    });
    expect((await call('admin.approval.resolve', { id: 'nope', approved: true })).error).toEqual({
      code: -32603,
      message: 'Approval request not found: nope',
      data: { kind: 'not_found', param: 'id' },
    });
    expect((await call('admin.approval.resolveAll', {})).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('approved'),
    });
    expect((await call('admin.approval.resolveAll', { approved: true, sessionKey: '' })).error).toMatchObject({
      code: -32602,
    });
    expect((await call('admin.approval.resolveAll', { approved: true, approvedBy: '' })).error).toMatchObject({
      code: -32602,
    });
    expect((await call('admin.approval.resolveAll', { approved: true })).result).toEqual({
      resolved: 0,
      requestIds: [],
    });
    expect((await call('admin.approval.clearDenialCache', { all: true })).error).toMatchObject({ code: -32602 });
    expect((await call('admin.approval.clearDenialCache')).result).toEqual({ cleared: true });

    const forbidden = { code: -32603, message: "Insufficient scope: requires 'admin'", data: { kind: 'forbidden' } };
    for (const [method, params] of [
      ['admin.approval.pending', {}],
      ['admin.approval.resolve', { id: 'x', approved: true }],
      ['admin.approval.resolveAll', { approved: true }],
      ['admin.approval.clearDenialCache', undefined],
    ] as const) {
      expect((await call(method, params, gw.tokens.rpc)).error, method).toEqual(forbidden);
    }
  });
});
