// ApprovalPort conformance: what every backend must do with approval requests (create, read, pending lists, one resolver wins).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalPort, ApprovalRequestRecord } from '../../src/store/index.js';

export interface ApprovalPortHandle {
  port: ApprovalPort;
  close(): Promise<void>;
}

export const pendingRequest = (
  id: string,
  requestedAt: number,
  overrides: Partial<ApprovalRequestRecord> = {},
): ApprovalRequestRecord => ({
  id,
  agentId: 'default',
  sessionKey: 'default:alice:ws',
  toolName: 'shell',
  args: { command: 'rm -rf /tmp/x', flags: [1, true, null] },
  argsDigest: 'a'.repeat(64),
  traceId: `trace-${id}`,
  rootRunId: null,
  requestedBy: 'rpc-client',
  ownerInstance: 'node-a',
  status: 'pending',
  requestedAt,
  expiresAt: requestedAt + 300_000,
  resolvedAt: null,
  resolvedBy: null,
  reason: null,
  ...overrides,
});

export function approvalPortCases(name: string, open: () => Promise<ApprovalPortHandle>): void {
  describe(`ApprovalPort conformance: ${name}`, () => {
    let handle: ApprovalPortHandle;
    beforeEach(async () => {
      handle = await open();
    });
    afterEach(async () => {
      await handle.close();
    });

    it('returns what was created, field for field, and undefined for an unknown id', async () => {
      const stored = pendingRequest('r1', 100, { rootRunId: 'run-1', expiresAt: null });
      await handle.port.create(stored);
      expect(await handle.port.get('r1')).toEqual(stored);
      expect(await handle.port.get('nope')).toBeUndefined();
    });

    it('lists pending requests oldest first, optionally of one session, and leaves ended ones out', async () => {
      await handle.port.create(pendingRequest('late', 300));
      await handle.port.create(pendingRequest('early', 100, { sessionKey: 'default:bob:ws' }));
      await handle.port.create(pendingRequest('middle', 200));
      await handle.port.resolve('middle', { approved: true, resolvedAt: 250, resolvedBy: 'admin', reason: null });
      expect((await handle.port.listPending({})).map((request) => request.id)).toEqual(['early', 'late']);
      expect((await handle.port.listPending({ sessionKey: 'default:alice:ws' })).map((request) => request.id)).toEqual([
        'late',
      ]);
    });

    it('resolves a pending request once: the first resolution is kept and later ones report false', async () => {
      await handle.port.create(pendingRequest('r1', 100));
      expect(
        await handle.port.resolve('r1', {
          approved: false,
          resolvedAt: 150,
          resolvedBy: 'system:timeout',
          reason: 'no decision within 50 ms',
        }),
      ).toBe(true);
      expect(
        await handle.port.resolve('r1', { approved: true, resolvedAt: 160, resolvedBy: 'admin', reason: null }),
      ).toBe(false);
      expect(
        await handle.port.resolve('unknown', { approved: true, resolvedAt: 160, resolvedBy: 'admin', reason: null }),
      ).toBe(false);
      expect(await handle.port.get('r1')).toMatchObject({
        status: 'denied',
        resolvedAt: 150,
        resolvedBy: 'system:timeout',
        reason: 'no decision within 50 ms',
      });
    });

    it('refuses a second request with the same id', async () => {
      await handle.port.create(pendingRequest('dup', 100));
      await expect(handle.port.create(pendingRequest('dup', 200))).rejects.toThrow();
    });

    it('honours an aborted signal when listing', async () => {
      const aborted = AbortSignal.abort();
      await expect(handle.port.listPending({}, aborted)).rejects.toThrow();
    });
    it("lists one turn's requests oldest first", async () => {
      await handle.port.create(pendingRequest('second', 200, { traceId: 'turn-1' }));
      await handle.port.create(pendingRequest('first', 100, { traceId: 'turn-1' }));
      await handle.port.create(pendingRequest('elsewhere', 150, { traceId: 'turn-2' }));
      expect((await handle.port.listOfTrace('turn-1', 10)).map((request) => request.id)).toEqual(['first', 'second']);
      expect(await handle.port.listOfTrace('turn-3', 10)).toEqual([]);
    });

    it('lists decisions newest first with who and why, paging after a row without skipping ties', async () => {
      for (const id of ['a', 'b', 'c', 'd', 'open']) await handle.port.create(pendingRequest(id, 10));
      await handle.port.resolve('a', { approved: true, resolvedAt: 50, resolvedBy: 'admin', reason: null });
      await handle.port.resolve('b', { approved: false, resolvedAt: 60, resolvedBy: 'ops', reason: 'too risky' });
      await handle.port.resolve('c', { approved: false, resolvedAt: 60, resolvedBy: 'ops', reason: null });
      await handle.port.resolve('d', { approved: true, resolvedAt: 40, resolvedBy: 'admin', reason: null });
      const first = await handle.port.listResolved({ limit: 2 });
      expect(first.map((request) => [request.id, request.status, request.resolvedBy, request.reason])).toEqual([
        ['c', 'denied', 'ops', null],
        ['b', 'denied', 'ops', 'too risky'],
      ]);
      const next = await handle.port.listResolved({ limit: 2, before: { ts: 60, id: 'b' } });
      expect(next.map((request) => request.id)).toEqual(['a', 'd']);
    });
  });
}
