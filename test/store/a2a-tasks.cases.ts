// The A2aTaskPort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { A2aTaskPort, A2aTaskRecord } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

const WORKING = 3;
const COMPLETED = 4;

const task = (taskId: string, overrides: Partial<A2aTaskRecord> = {}): A2aTaskRecord => ({
  taskId,
  ownerId: 'alice',
  agentId: 'helper',
  contextId: 'ctx-1',
  state: COMPLETED,
  updatedAt: 1_000,
  isTerminal: true,
  body: JSON.stringify({ id: taskId }),
  ...overrides,
});

export function a2aTaskPortCases(backend: string, open: () => Promise<PortFixture<A2aTaskPort>>): void {
  describe(`A2aTaskPort conformance (${backend})`, () => {
    let fixture: PortFixture<A2aTaskPort>;
    let tasks: A2aTaskPort;
    beforeEach(async () => {
      fixture = await open();
      tasks = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('replaces a task on a second put and finds it only for its owner at its agent', async () => {
      await tasks.put(task('t1', { state: WORKING, isTerminal: false, updatedAt: 1_000 }));
      await tasks.put(task('t1', { state: COMPLETED, updatedAt: 2_000, body: '{"id":"t1","done":true}' }));
      expect(await tasks.get('t1', 'alice', 'helper')).toEqual(
        task('t1', { updatedAt: 2_000, body: '{"id":"t1","done":true}' }),
      );
      expect(await tasks.get('t1', 'bob', 'helper')).toBeUndefined();
      expect(await tasks.get('t1', 'alice', 'other')).toBeUndefined();
      expect(await tasks.get('missing', 'alice', 'helper')).toBeUndefined();
    });

    it('lists newest update first, ties by task id descending, resuming after a cursor without skipping a tie', async () => {
      await tasks.put(task('a', { updatedAt: 5_000 }));
      await tasks.put(task('b', { updatedAt: 5_000 }));
      await tasks.put(task('c', { updatedAt: 6_000 }));
      await tasks.put(task('d', { updatedAt: 4_000 }));
      await tasks.put(task('z', { ownerId: 'bob', updatedAt: 9_000 }));
      const first = await tasks.list('alice', 'helper', { limit: 2 });
      expect(first).toEqual({ records: [task('c', { updatedAt: 6_000 }), task('b', { updatedAt: 5_000 })], total: 4 });
      const rest = await tasks.list('alice', 'helper', { limit: 5, after: { updatedAt: 5_000, taskId: 'b' } });
      expect(rest.records.map((record) => record.taskId)).toEqual(['a', 'd']);
      expect(rest.total).toBe(4);
    });

    it('filters by context, state and update time', async () => {
      await tasks.put(task('a', { contextId: 'x', updatedAt: 1_000 }));
      await tasks.put(task('b', { contextId: 'y', state: WORKING, isTerminal: false, updatedAt: 2_000 }));
      await tasks.put(task('c', { contextId: 'y', updatedAt: 3_000 }));
      const ids = async (query: Parameters<A2aTaskPort['list']>[2]) =>
        (await tasks.list('alice', 'helper', query)).records.map((record) => record.taskId);
      expect(await ids({ limit: 10, contextId: 'y' })).toEqual(['c', 'b']);
      expect(await ids({ limit: 10, state: WORKING })).toEqual(['b']);
      expect(await ids({ limit: 10, updatedAfter: 1_000 })).toEqual(['c', 'b']);
      expect((await tasks.list('alice', 'helper', { limit: 1, contextId: 'y' })).total).toBe(2);
    });

    it('prunes the finished tasks past the newest ones kept and never a running one', async () => {
      for (const [index, id] of ['a', 'b', 'c', 'd'].entries()) await tasks.put(task(id, { updatedAt: 1_000 + index }));
      await tasks.put(task('running', { state: WORKING, isTerminal: false, updatedAt: 1 }));
      expect(await tasks.pruneFinished(2)).toBe(2);
      const left = (await tasks.list('alice', 'helper', { limit: 10 })).records.map((record) => record.taskId);
      expect(left).toEqual(['d', 'c', 'running']);
      expect(await tasks.pruneFinished(2)).toBe(0);
    });
  });
}
