// Pending approval requests live in the store: a restart finds the ones a dead process left and ends them as denied.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { TestSocket } from '../support/ws-client.js';
import { startApprovalGateway, type ApprovalGateway } from './approval-gateway.js';
import { admin, keyOf, pending, startTurn, waitForPending } from './approval-support.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
});
afterAll(async () => {
  await llm.close();
});

const cleanups: (() => Promise<unknown>)[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  llm.reset();
});

function requestRow(databasePath: string, id: string): Record<string, unknown> | undefined {
  const db = new Database(databasePath, { readonly: true });
  try {
    return db.prepare('SELECT status, resolved_by, reason FROM approval_requests WHERE id = ?').get(id) as
      Record<string, unknown> | undefined;
  } finally {
    db.close();
  }
}

async function started(dataDir?: string): Promise<ApprovalGateway> {
  const gw = await startApprovalGateway(llm, {
    approvals: { timeoutMs: 0 },
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  cleanups.push(() => gw.close());
  return gw;
}

describe('approval requests across a restart', () => {
  it('a request left pending by a crashed process is still in the store, and the restarted gateway ends it as denied, stating why', async () => {
    const first = await started();
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] });
    void startTurn(first, 'crash', 'before the crash', sockets).catch(() => undefined);
    const [request] = await waitForPending(first, 1);
    const id = String(request?.id);

    // A crash: the database file as it is on disk right now, while the first process still waits.
    const crashedDir = await mkdtemp(join(tmpdir(), 'agent-gateway-approvals-crashed-'));
    cleanups.push(() => rm(crashedDir, { recursive: true, force: true }));
    const source = new Database(first.paths.databasePath, { readonly: true });
    await source.backup(join(crashedDir, 'gateway.db'));
    source.close();
    expect(requestRow(join(crashedDir, 'gateway.db'), id)).toEqual({
      status: 'pending',
      resolved_by: null,
      reason: null,
    });

    const restarted = await started(crashedDir);
    expect(await pending(restarted)).toEqual([]);
    const reason = 'the gateway stopped while the call waited; its turn could not be resumed';
    expect(requestRow(restarted.paths.databasePath, id)).toEqual({
      status: 'denied',
      resolved_by: 'system:restart',
      reason,
    });
    const resolvedEvent = restarted.events().find((event) => event.name === 'approval:resolved');
    expect(resolvedEvent?.payload).toEqual({
      agentId: 'default',
      sessionKey: keyOf('crash'),
      requestId: id,
      toolName: 'current_time',
      approved: false,
      resolvedBy: 'system:restart',
    });
    const late = await admin(restarted, 'admin.approval.resolve', { id, approved: true });
    expect(late.error).toMatchObject({
      data: { kind: 'conflict' },
      message: `Approval request ${id} is already denied`,
    });
    const audit = await admin(restarted, 'obs.audit.query', { kind: 'approval' });
    expect(audit.result).toMatchObject({
      rows: [{ actor: 'system:restart', outcome: 'denied', refs: expect.stringContaining('"cause":"restart"') }],
    });

    // Only the restarted copy ended it: the first process, still running on its own file, keeps waiting on it.
    expect((await pending(first)).map((entry) => entry.id)).toEqual([id]);
  });

  it('a request whose client went away ends as denied at once instead of staying pending', async () => {
    const gw = await started();
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] });
    void startTurn(gw, 'gone', 'then I left', sockets).catch(() => undefined);
    const [request] = await waitForPending(gw, 1);
    await sockets.splice(0)[0]?.close();
    await expect.poll(async () => (await pending(gw)).length).toBe(0);
    expect(requestRow(gw.paths.databasePath, String(request?.id))).toEqual({
      status: 'denied',
      resolved_by: 'system:cancelled',
      reason: 'the turn ended before a decision',
    });
  });
});
