// How many gated calls may wait at once: approvals.maxPendingPerOwner per token, approvals.maxPendingPerSession per session.
import type { ToolDecision, TurnHookContext } from '../../src/turns/types.js';
import { createEventBus } from '../../src/events/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalService, type ApprovalService } from '../../src/approvals/approval-service.js';
import { approvalsConfigSchema, type ApprovalsConfig } from '../../src/config/index.js';
import { createLocalInstances } from '../../src/coordination/index.js';
import { createLogger } from '../../src/obs/index.js';
import { createSqliteApprovalPort, openDatabase, type SqliteDatabase } from '../../src/store/sqlite/index.js';
import { readSessionKey } from '../../src/sessions/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { connect, type TestSocket } from '../support/ws-client.js';
import { staticAgents } from '../sessions/service-fixture.js';
import { startApprovalGateway, type ApprovalGateway } from './approval-gateway.js';
import { admin, keyOf, pending, resultOf, startTurn, toolResultsSent, waitForPending } from './approval-support.js';

const callTime = { toolCalls: [{ name: 'current_time', arguments: {} }] };

describe('pending approvals per token, over the gateway', () => {
  let llm: FakeLlm;
  let gw: ApprovalGateway | undefined;
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.close()));
    await gw?.close();
    gw = undefined;
    llm.reset();
  });

  it('denies a gated call at once when its token already has approvals.maxPendingPerOwner waiting; other tokens still ask', async () => {
    gw = await startApprovalGateway(llm, { approvals: { maxPendingPerOwner: 2 } });
    const gateway = gw;
    const waiting = [];
    for (const peer of ['one', 'two']) {
      llm.script(callTime);
      waiting.push(startTurn(gateway, peer, `ask ${peer}`, sockets));
      await waitForPending(gateway, waiting.length);
    }
    llm.script(callTime, { text: 'Could not check the time.' });
    const third = resultOf(await startTurn(gateway, 'three', 'ask three', sockets));
    expect(third.response).toBe('Could not check the time.');
    expect(toolResultsSent(llm, 'ask three')).toEqual([
      'Error: current_time was denied: 2 approval requests of this token are already waiting (approvals.maxPendingPerOwner); try again once one is decided',
    ]);
    expect((await pending(gateway)).map((request) => request.sessionKey).sort()).toEqual([keyOf('one'), keyOf('two')]);

    // An admin's turn is its own token's: it still waits for an operator.
    llm.script(callTime);
    const socket = connect(gateway.wsUrl, { token: gateway.tokens.admin });
    sockets.push(socket);
    const adminTurn = socket.call('agent.execute', {
      message: 'admin asks',
      sessionKey: { tenantId: 'default', userId: 'admin', channelId: 'test', peerId: 'mine' },
    });
    await waitForPending(gateway, 3);
    await admin(gateway, 'admin.approval.resolveAll', { approved: true });
    await Promise.all([...waiting, adminTurn]);
    // With the waiting ones decided, the token may ask again.
    llm.script(callTime);
    const again = startTurn(gateway, 'four', 'ask four', sockets);
    await waitForPending(gateway, 1);
    await admin(gateway, 'admin.approval.resolveAll', { approved: true });
    expect(resultOf(await again).finishReason).toBe('stop');
  });
});

describe('pending approvals per session, in the approval service', () => {
  let db: SqliteDatabase;
  let service: ApprovalService | undefined;
  let config: ApprovalsConfig;
  beforeAll(() => {
    db = openDatabase({ path: ':memory:' });
  });
  afterAll(() => {
    db.close();
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  function start(overrides: Partial<ApprovalsConfig>): ApprovalService {
    config = approvalsConfigSchema.parse(overrides);
    const log = createLogger({ level: 'silent' });
    let ids = 0;
    service = createApprovalService({
      port: createSqliteApprovalPort(db),
      events: createEventBus({ now: Date.now, log }),
      audit: { record: () => {} },
      agents: staticAgents({ default: { name: 'default', requireApproval: ['shell'] } }),
      config: () => config,
      instances: createLocalInstances(),
      now: Date.now,
      newId: () => `req-${++ids}-${Math.random()}`,
      log,
    });
    return service;
  }

  // Turns of one session are serialised by its lock; a second waiting call in a session comes from another replica
  // or a turn that took no lock, which these contexts stand in for.
  const ask = (approvals: ApprovalService, sessionKey: string, cmd = 'ls'): Promise<ToolDecision> => {
    const ctx: TurnHookContext = {
      agentId: 'default',
      ...readSessionKey(sessionKey),
      traceId: `t-${Math.random()}`,
      clientId: 'alice',
      ownerId: 'alice',
      signal: new AbortController().signal,
    };
    return approvals.beforeTool({ toolCallId: 'c1', toolName: 'shell', input: { cmd } }, ctx);
  };

  it('denies a call at once when its session already has approvals.maxPendingPerSession waiting', async () => {
    const approvals = start({ maxPendingPerSession: 1 });
    const first = await ask(approvals, 'default:alice:chat:a');
    expect(first.action).toBe('wait');
    expect(await ask(approvals, 'default:alice:chat:a')).toEqual({
      action: 'deny',
      reason:
        '1 approval request of this session is already waiting (approvals.maxPendingPerSession); try again once it is decided',
    });
    expect((await ask(approvals, 'default:alice:chat:b')).action).toBe('wait');
    expect((await approvals.pending()).map((request) => request.sessionKey)).toEqual([
      'default:alice:chat:a',
      'default:alice:chat:b',
    ]);
    const [request] = await approvals.pending();
    await approvals.resolve(request?.id ?? '', { approved: false, resolvedBy: 'op' });
    if (first.action === 'wait') expect(await first.decision).toMatchObject({ action: 'deny' });
    // The decided request no longer counts (another command: the denied one is answered from the denial cache).
    expect((await ask(approvals, 'default:alice:chat:a', 'pwd')).action).toBe('wait');
  });
});
