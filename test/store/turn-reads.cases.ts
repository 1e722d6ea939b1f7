// EvidencePort conformance for reads over turn rows (steps in one JSON text) mixed with loose records: one read order
// for a session, the kind read and the window read, and a window wider than one read page.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidencePort, EvidenceWrite, TurnStep } from '../../src/store/index.js';

export interface TurnReadsHandle {
  port: EvidencePort;
  close(): Promise<void>;
}

const turn = (traceId: string, sessionKey: string, startedAt: number, steps: TurnStep[]): EvidenceWrite => ({
  type: 'turn',
  turn: {
    traceId,
    sessionKey,
    agentId: 'default',
    channel: 'ws',
    startedAt,
    isSynthetic: false,
    end: { endReason: 'completed', degraded: false, endedAt: startedAt + 9 },
    steps,
  },
});
const loose = (sessionKey: string, traceId: string, kind: string, ts: number, data = {}): EvidenceWrite => ({
  type: 'trajectory',
  record: { sessionKey, traceId, kind, ts, data },
});

export function turnReadsCases(name: string, open: () => Promise<TurnReadsHandle>): void {
  describe(`EvidencePort reads of turn rows: ${name}`, () => {
    let handle: TurnReadsHandle;
    let port: EvidencePort;
    beforeEach(async () => {
      handle = await open();
      port = handle.port;
    });
    afterEach(async () => {
      await handle.close();
    });

    it('places a loose record ahead of a turn started at or after its time, in every read', async () => {
      await port.append([
        turn('ta', 's', 100, [
          { kind: 'turn_start', ts: 100, data: {} },
          { kind: 'context_budget', ts: 101, data: { n: 1 } },
          { kind: 'tool_call', ts: 102, data: { tool: 'x' } },
          { kind: 'turn_end', ts: 103, data: {} },
        ]),
        turn('tb', 's', 200, [
          { kind: 'turn_start', ts: 200, data: {} },
          { kind: 'context_budget', ts: 201, data: { n: 2 } },
          { kind: 'turn_end', ts: 202, data: {} },
        ]),
        loose('s', 'tb', 'context_budget', 200, { n: 'late' }),
        loose('s', 'ta', 'tool_call', 150, { tool: 'late' }),
      ]);
      const session = await port.trajectoryOf('s');
      expect(session.map((record) => `${record.seq}:${record.traceId}/${record.kind}@${record.ts}`)).toEqual([
        '1:ta/turn_start@100',
        '2:ta/context_budget@101',
        '3:ta/tool_call@102',
        '4:ta/turn_end@103',
        '5:ta/tool_call@150',
        '6:tb/context_budget@200',
        '7:tb/turn_start@200',
        '8:tb/context_budget@201',
        '9:tb/turn_end@202',
      ]);
      expect(await port.trajectoryOf('s', { newest: 3 })).toEqual(session.slice(6));
      expect(await port.trajectoryCountOf('s')).toBe(9);

      const budgets = await port.trajectoryOfKind({ kind: 'context_budget', newest: 10 });
      expect(budgets.map((record) => [record.seq, record.agentId, record.data.n])).toEqual([
        [1, 'default', 1],
        [2, 'default', 'late'],
        [3, 'default', 2],
      ]);
      expect((await port.trajectoryOfKind({ kind: 'context_budget', newest: 2 })).map((r) => r.data.n)).toEqual([
        'late',
        2,
      ]);

      const window = { sinceMs: 0, untilMs: 1_000, includeSynthetic: false, kinds: ['tool_call', 'context_budget'] };
      const all = await port.trajectoryOfTurnsIn({ ...window, limit: 10 });
      expect({
        rows: all.rows.map((record) => `${record.seq}:${record.traceId}/${record.kind}`),
        total: all.total,
      }).toEqual({
        rows: ['1:ta/context_budget', '2:ta/tool_call', '3:ta/tool_call', '4:tb/context_budget', '5:tb/context_budget'],
        total: 5,
      });
      const cut = await port.trajectoryOfTurnsIn({ ...window, limit: 2 });
      expect({ rows: cut.rows, total: cut.total }).toEqual({ rows: all.rows.slice(0, 2), total: 5 });
    });

    it('reads a window of more turns than one page in start then trace order, counting past the limit', async () => {
      const count = 10_003;
      const ids = Array.from({ length: count }, (_, index) => `w${String(index).padStart(5, '0')}`);
      // Two start times only, so the order within one start (and across pages) comes from the trace id.
      const startOf = (index: number) => 5_000 + ((index * 7) % 2);
      await port.append(
        ids.map((id, index) =>
          turn(id, `s-${index}`, startOf(index), [
            { kind: 'turn_start', ts: startOf(index), data: {} },
            { kind: 'turn_end', ts: startOf(index) + 1, data: { index } },
          ]),
        ),
      );
      const expected = ids
        .map((id, index) => ({ id, start: startOf(index) }))
        .sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1))
        .map(({ id }) => id);
      const window = { sinceMs: 0, untilMs: 10_000, includeSynthetic: false, kinds: ['turn_end'] };
      const all = await port.trajectoryOfTurnsIn({ ...window, limit: 20_000 });
      expect({ ids: all.rows.map((record) => record.traceId), total: all.total }).toEqual({
        ids: expected,
        total: count,
      });
      expect(all.rows.at(-1)?.seq).toBe(count);
      const cut = await port.trajectoryOfTurnsIn({ ...window, limit: 10_001 });
      expect({ ids: cut.rows.map((record) => record.traceId), total: cut.total }).toEqual({
        ids: expected.slice(0, 10_001),
        total: count,
      });
    });
  });
}
