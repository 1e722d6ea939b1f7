// EvidencePort conformance: trajectory records round-trip, and the store allocates each session's seq safely.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidencePort, EvidenceWrite } from '../../src/store/index.js';

export interface EvidencePortHandle {
  port: EvidencePort;
  /** Another writer over the same store (for SQLite: a second connection to the same file). */
  openWriter(): EvidencePort;
  close(): Promise<void>;
}

const step = (sessionKey: string, kind: string, ts = 1): EvidenceWrite => ({
  type: 'trajectory',
  record: { sessionKey, traceId: `trace-${sessionKey}`, kind, ts, data: { n: ts } },
});

export function evidencePortCases(name: string, open: () => Promise<EvidencePortHandle>): void {
  describe(`EvidencePort conformance: ${name}`, () => {
    let handle: EvidencePortHandle;
    beforeEach(async () => {
      handle = await open();
    });
    afterEach(async () => {
      await handle.close();
    });

    it('returns trajectory records with their data, numbered 1, 2, 3 per session in append order across batches', async () => {
      await handle.port.append([step('a', 'turn_start', 1), step('b', 'turn_start', 2), step('a', 'model_call', 3)]);
      await handle.port.append([step('a', 'turn_end', 4)]);
      expect(await handle.port.trajectoryOf('a')).toEqual([
        { sessionKey: 'a', traceId: 'trace-a', seq: 1, ts: 1, kind: 'turn_start', data: { n: 1 } },
        { sessionKey: 'a', traceId: 'trace-a', seq: 2, ts: 3, kind: 'model_call', data: { n: 3 } },
        { sessionKey: 'a', traceId: 'trace-a', seq: 3, ts: 4, kind: 'turn_end', data: { n: 4 } },
      ]);
      expect((await handle.port.trajectoryOf('b')).map((record) => record.seq)).toEqual([1]);
      expect(await handle.port.trajectoryOf('nobody')).toEqual([]);
    });

    it('never hands out one seq twice when two writers append to the same session at once', async () => {
      const other = handle.openWriter();
      const batches = Array.from({ length: 20 }, (_, index) => [
        step('shared', `k${index}`, index),
        step('shared', `k${index}b`, index),
      ]);
      await Promise.all(batches.map((batch, index) => (index % 2 === 0 ? handle.port : other).append(batch)));
      const seqs = (await handle.port.trajectoryOf('shared')).map((record) => record.seq);
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    });

    it('accepts session index and usage writes in the same batch as trajectory records', async () => {
      await handle.port.append([
        {
          type: 'session_start',
          entry: {
            traceId: 'trace-c',
            sessionKey: 'c',
            agentId: 'default',
            channel: 'ws',
            startedAt: 1,
            isSynthetic: false,
          },
        },
        step('c', 'turn_start'),
        {
          type: 'usage',
          record: {
            ts: 2,
            agentId: 'default',
            sessionKey: 'c',
            provider: 'p',
            model: 'm',
            inputTokens: 1,
            outputTokens: 1,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            costUsd: 0,
          },
        },
        { type: 'session_end', end: { traceId: 'trace-c', endReason: 'completed', degraded: false, endedAt: 3 } },
      ]);
      expect((await handle.port.trajectoryOf('c')).map((record) => record.kind)).toEqual(['turn_start']);
    });

    it('finishes a session index row whether its end arrives in the same batch as its start or a later one', async () => {
      const start = (traceId: string, startedAt: number) =>
        ({
          type: 'session_start',
          entry: { traceId, sessionKey: 'd', agentId: 'default', channel: 'ws', startedAt, isSynthetic: false },
        }) as const;
      const end = (traceId: string, endedAt: number, degraded = false) =>
        ({
          type: 'session_end',
          end: { traceId, endReason: degraded ? 'error' : 'completed', degraded, endedAt },
        }) as const;
      await handle.port.append([start('same-batch', 10), end('same-batch', 12)]);
      await handle.port.append([start('later-batch', 20)]);
      expect((await handle.port.sessionIndexOf('d')).map((row) => [row.traceId, row.endReason, row.endedAt])).toEqual([
        ['same-batch', 'completed', 12],
        ['later-batch', null, null],
      ]);
      await handle.port.append([end('later-batch', 25, true), end('never-started', 30)]);
      expect(await handle.port.sessionIndexOf('d')).toMatchObject([
        { traceId: 'same-batch', endReason: 'completed', degraded: false, startedAt: 10, endedAt: 12 },
        { traceId: 'later-batch', endReason: 'error', degraded: true, startedAt: 20, endedAt: 25 },
      ]);
    });
  });
}
