// ObsPort conformance: channel activity, delivery traces, diagnostic events and health signals appended, queried and reset.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryRow, ObsPort } from '../../src/store/index.js';

export interface ObsPortHandle {
  port: ObsPort;
  close(): Promise<void>;
}

const delivery = (overrides: Partial<DeliveryRow> & Pick<DeliveryRow, 'ts'>): DeliveryRow => ({
  channelId: 'ws',
  channelType: 'ws',
  sessionKey: null,
  traceId: null,
  outcome: 'success',
  latencyMs: 10,
  errorKind: null,
  ...overrides,
});

export function obsPortCases(name: string, open: () => Promise<ObsPortHandle>): void {
  describe(`ObsPort conformance: ${name}`, () => {
    let handle: ObsPortHandle;
    beforeEach(async () => {
      handle = await open();
    });
    afterEach(async () => {
      await handle.close();
    });

    it('lists delivery traces newest first with their ids, filtered by time and channel, at most limit', async () => {
      await handle.port.append([
        { type: 'delivery', row: delivery({ ts: 1, sessionKey: 'default:a:ws', traceId: 't1' }) },
        {
          type: 'delivery',
          row: delivery({
            ts: 2,
            channelId: 'tg',
            channelType: 'telegram',
            outcome: 'failure',
            errorKind: 'undelivered',
          }),
        },
        { type: 'delivery', row: delivery({ ts: 3 }) },
      ]);
      expect(await handle.port.deliveries({ limit: 10 })).toEqual([
        { id: 3, ...delivery({ ts: 3 }) },
        {
          id: 2,
          ...delivery({
            ts: 2,
            channelId: 'tg',
            channelType: 'telegram',
            outcome: 'failure',
            errorKind: 'undelivered',
          }),
        },
        { id: 1, ...delivery({ ts: 1, sessionKey: 'default:a:ws', traceId: 't1' }) },
      ]);
      expect((await handle.port.deliveries({ sinceMs: 2, channelId: 'ws', limit: 10 })).map((row) => row.ts)).toEqual([
        3,
      ]);
      expect((await handle.port.deliveries({ limit: 2 })).map((row) => row.ts)).toEqual([3, 2]);
    });

    it('totals deliveries, and answers zeros when there are none', async () => {
      expect(await handle.port.deliveryStats()).toEqual({ total: 0, successes: 0, avgLatencyMs: 0 });
      await handle.port.append([
        { type: 'delivery', row: delivery({ ts: 1, latencyMs: 100 }) },
        { type: 'delivery', row: delivery({ ts: 2, latencyMs: 200, outcome: 'failure' }) },
      ]);
      expect(await handle.port.deliveryStats()).toEqual({ total: 2, successes: 1, avgLatencyMs: 150 });
    });

    it('lists diagnostics newest first and sums count per category and kind over every matching row', async () => {
      const diagnostic = (ts: number, category: string, count = 1) => ({
        type: 'diagnostic' as const,
        row: { ts, category, kind: 'k', count, severity: 'info', data: '{}' },
      });
      await handle.port.append([
        diagnostic(1, 'model', 2),
        diagnostic(2, 'model', 3),
        diagnostic(3, 'system'),
        diagnostic(4, 'model'),
      ]);
      const { rows, totals } = await handle.port.diagnostics({ category: 'model', sinceMs: 2, limit: 1 });
      expect(rows).toEqual([{ id: 4, ts: 4, category: 'model', kind: 'k', count: 1, severity: 'info', data: '{}' }]);
      expect(totals).toEqual([{ category: 'model', kind: 'k', total: 4 }]);
    });

    it('adds channel touches up per channel; the type is replaced and last activity never moves back', async () => {
      await handle.port.append([
        { type: 'channel', touch: { channelId: 'a', channelType: 'ws', ts: 5, direction: 'received' } },
        { type: 'channel', touch: { channelId: 'a', channelType: 'telegram', ts: 3, direction: 'sent' } },
      ]);
      await handle.port.append([
        { type: 'channel', touch: { channelId: 'b', channelType: 'ws', ts: 1, direction: 'sent' } },
      ]);
      expect(await handle.port.channel('a')).toEqual({
        channelId: 'a',
        channelType: 'telegram',
        lastActiveAt: 5,
        messagesSent: 1,
        messagesReceived: 1,
      });
      expect(await handle.port.channel('nope')).toBeUndefined();
      expect((await handle.port.channels()).map((row) => row.channelId).sort()).toEqual(['a', 'b']);
      expect(await handle.port.reset('channels')).toBe(2);
      expect(await handle.port.channels()).toEqual([]);
    });

    it('reset deletes one table and says how many rows went; health signals are appended alongside', async () => {
      await handle.port.append([
        { type: 'delivery', row: delivery({ ts: 1 }) },
        { type: 'diagnostic', row: { ts: 1, category: 'c', kind: 'k', count: 1, severity: 'info', data: '{}' } },
        {
          type: 'health_signal',
          row: { ts: 1, kind: 'health', agentId: null, rootRunId: null, severity: 'warning', data: '{"code":"x"}' },
        },
      ]);
      expect(await handle.port.reset('delivery')).toBe(1);
      expect(await handle.port.deliveries({ limit: 10 })).toEqual([]);
      expect((await handle.port.diagnostics({ limit: 10 })).rows).toHaveLength(1);
      expect(await handle.port.reset('diagnostics')).toBe(1);
    });
  });
}
