// The LearningPort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_OUTCOMES_PER_SAVE,
  type LearnedProcedure,
  type LearningPort,
  type OutcomeRecord,
} from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

export function outcomeRecord(traceId: string, overrides: Partial<OutcomeRecord> = {}): OutcomeRecord {
  return {
    traceId,
    agentId: 'main',
    ownerId: 'tok-a',
    sessionKey: 'agent:main:s1',
    senderId: 'alice',
    ts: 1_000,
    outcome: 'success',
    sources: ['tool'],
    toolSequence: ['web_search', 'memory_save'],
    topicKey: 'berlin+weather',
    trusted: true,
    skillsUsed: ['weather'],
    recalledMemoryIds: ['m1', 'm2'],
    sourceChars: 120,
    ...overrides,
  };
}

export function learnedProcedure(id: string, overrides: Partial<LearnedProcedure> = {}): LearnedProcedure {
  return {
    id,
    agentId: 'main',
    name: 'check-weather',
    description: 'Look up the weather and save it',
    body: '# Goal\nKnow the weather.\n',
    tools: ['web_search', 'memory_save'],
    state: 'candidate',
    toolSequence: ['web_search', 'memory_save'],
    topicKey: 'berlin+weather',
    cardinality: 3,
    synthesisAbstained: false,
    sourceTraceIds: ['t1', 't2', 't3'],
    successUses: 0,
    failureUses: 0,
    createdAt: 100,
    updatedAt: 100,
    stateSince: 100,
    ...overrides,
  };
}

export function learningPortCases(backend: string, open: () => Promise<PortFixture<LearningPort>>): void {
  describe(`LearningPort conformance (${backend})`, () => {
    let fixture: PortFixture<LearningPort>;
    let learning: LearningPort;
    beforeEach(async () => {
      fixture = await open();
      learning = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('saves an outcome record and reads every field back; saving it again replaces it', async () => {
      const record = outcomeRecord('t1');
      await learning.saveOutcomes([record]);
      expect(await learning.outcome('t1')).toEqual(record);
      const unresolved = outcomeRecord('t1', { outcome: null, sources: [], ownerId: null, trusted: false });
      await learning.saveOutcomes([unresolved]);
      expect(await learning.outcome('t1')).toEqual(unresolved);
      const corrected = { ...record, outcome: 'corrected' as const, sources: ['tool' as const, 'correction' as const] };
      await learning.saveOutcomes([corrected]);
      expect(await learning.outcome('t1')).toEqual(corrected);
      expect(await learning.outcome('missing')).toBeUndefined();
    });

    it('saves the turns finishing together in one call, past one statement, replacing the ones saved before', async () => {
      await learning.saveOutcomes([outcomeRecord('t0', { outcome: null, sources: [] })]);
      const batch = Array.from({ length: MAX_OUTCOMES_PER_SAVE + 2 }, (_, index) =>
        outcomeRecord(`t${index}`, { ts: 1_000 + index }),
      );
      await learning.saveOutcomes(batch);
      expect(await learning.outcome('t0')).toEqual(batch[0]);
      expect(await learning.outcome(`t${MAX_OUTCOMES_PER_SAVE + 1}`)).toEqual(batch.at(-1));
      expect(await learning.sessionOutcomes('agent:main:s1', 1_000)).toHaveLength(batch.length);
      await learning.saveOutcomes([]);
    });

    it("lists a session's turns newest first and an agent's turns after a time, bounded", async () => {
      await learning.saveOutcomes([outcomeRecord('t1', { ts: 10 })]);
      await learning.saveOutcomes([outcomeRecord('t2', { ts: 20 })]);
      await learning.saveOutcomes([outcomeRecord('t3', { ts: 30, sessionKey: 'agent:main:s2' })]);
      await learning.saveOutcomes([outcomeRecord('t4', { ts: 40, agentId: 'ops', sessionKey: 'agent:ops:s1' })]);
      expect((await learning.sessionOutcomes('agent:main:s1', 5)).map((r) => r.traceId)).toEqual(['t2', 't1']);
      expect((await learning.sessionOutcomes('agent:main:s1', 1)).map((r) => r.traceId)).toEqual(['t2']);
      expect((await learning.outcomesSince('main', 10, 10)).map((r) => r.traceId)).toEqual(['t3', 't2']);
      expect((await learning.outcomesSince('main', 0, 2)).map((r) => r.traceId)).toEqual(['t3', 't2']);
      expect(await learning.agentsWithOutcomes()).toEqual(['main', 'ops']);
    });

    it('saves a procedure, replaces it by id, finds it by tool sequence and topic key, and lists by agent and state', async () => {
      const procedure = learnedProcedure('p1', { synthesisAbstained: true });
      await learning.saveProcedure(procedure);
      expect(await learning.procedure('p1')).toEqual(procedure);
      const active = { ...procedure, state: 'active' as const, successUses: 3, updatedAt: 200, stateSince: 200 };
      await learning.saveProcedure(active);
      expect(await learning.procedure('p1')).toEqual(active);
      await learning.saveProcedure(learnedProcedure('p2', { createdAt: 150, topicKey: 'other' }));
      await learning.saveProcedure(learnedProcedure('p3', { agentId: 'ops', createdAt: 50 }));
      expect(await learning.procedureFor('main', ['web_search', 'memory_save'], 'berlin+weather')).toEqual(active);
      expect(await learning.procedureFor('main', ['memory_save', 'web_search'], 'berlin+weather')).toBeUndefined();
      expect(await learning.procedureFor('ops', ['web_search', 'memory_save'], 'other')).toBeUndefined();
      expect((await learning.procedures({ limit: 10 })).map((p) => p.id)).toEqual(['p1', 'p2', 'p3']);
      expect((await learning.procedures({ agentId: 'main', limit: 10 })).map((p) => p.id)).toEqual(['p1', 'p2']);
      expect((await learning.procedures({ state: 'candidate', limit: 10 })).map((p) => p.id)).toEqual(['p2', 'p3']);
      expect((await learning.procedures({ limit: 1 })).map((p) => p.id)).toEqual(['p1']);
      expect(await learning.procedure('missing')).toBeUndefined();
    });

    it("records uses, settles a turn's uses with its outcome (only the changed ones), and tallies them", async () => {
      await learning.recordUse({ procedureId: 'p1', traceId: 't1', sessionKey: 's1', outcome: null, ts: 10 });
      await learning.recordUse({ procedureId: 'p1', traceId: 't2', sessionKey: 's2', outcome: null, ts: 20 });
      await learning.recordUse({ procedureId: 'p1', traceId: 't3', sessionKey: 's2', outcome: null, ts: 30 });
      await learning.recordUse({ procedureId: 'p2', traceId: 't1', sessionKey: 's1', outcome: null, ts: 10 });
      const settled = await learning.settleUses('t1', 'success');
      expect(settled.map((use) => [use.procedureId, use.outcome]).sort()).toEqual([
        ['p1', 'success'],
        ['p2', 'success'],
      ]);
      expect(await learning.settleUses('t1', 'success')).toEqual([]);
      await learning.settleUses('t2', 'corrected');
      await learning.settleUses('t3', 'failure');
      expect(await learning.tally('p1', 0)).toEqual({ success: 1, failure: 2, failingSessions: 1 });
      expect(await learning.tally('p1', 25)).toEqual({ success: 0, failure: 1, failingSessions: 1 });
      expect(await learning.settleUses('t1', 'failure')).toHaveLength(2);
      expect(await learning.tally('p1', 0)).toEqual({ success: 0, failure: 3, failingSessions: 2 });
      expect(await learning.tally('missing', 0)).toEqual({ success: 0, failure: 0, failingSessions: 0 });
      expect(await learning.uses('p1', 2)).toEqual([
        { procedureId: 'p1', traceId: 't3', sessionKey: 's2', outcome: 'failure', ts: 30 },
        { procedureId: 'p1', traceId: 't2', sessionKey: 's2', outcome: 'corrected', ts: 20 },
      ]);
      expect((await learning.settleUses('t1', null)).map((use) => use.outcome)).toEqual([null, null]);
      expect(await learning.tally('p1', 0)).toEqual({ success: 0, failure: 2, failingSessions: 1 });
    });

    it("keeps each agent's last pass, 0 before any", async () => {
      expect(await learning.lastPass('main')).toBe(0);
      await learning.markPassed('main', 500);
      await learning.markPassed('main', 900);
      await learning.markPassed('ops', 100);
      expect(await learning.lastPass('main')).toBe(900);
      expect(await learning.lastPass('ops')).toBe(100);
    });
  });
}
