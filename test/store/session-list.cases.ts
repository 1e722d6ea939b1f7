// The SessionPort conformance cases of the dashboard's session list: channel, outcome and update-time filters, channels
// left out, the last turn's outcome and usage on each row, and the per-channel counts behind its total.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionPort, SessionRecord } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

const T0 = 1_700_000_000_000;

function newSession(sessionKey: string, createdAt: number, ownerId: string | null = 'alice') {
  return {
    sessionKey,
    agentId: 'default',
    tenantId: 'default',
    kind: 'dm' as const,
    createdAt,
    metadata: {},
    ownerId,
  } satisfies Omit<SessionRecord, 'messageCount' | 'updatedAt'>;
}

export function sessionListCases(backend: string, open: () => Promise<PortFixture<SessionPort>>): void {
  describe(`SessionPort list filters and counts (${backend})`, () => {
    let fixture: PortFixture<SessionPort>;
    let store: SessionPort;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.port;
      await store.ensure(newSession('default:alice:webchat', T0 + 100));
      await store.ensure(newSession('default:bob:webchat:room', T0 + 200, 'bob'));
      await store.ensure(newSession('default:alice:telegram', T0 + 300));
      await store.ensure(newSession('default:openai:openai:resp_1', T0 + 400, 'api'));
      await store.ensure(newSession('default:openai:openai:resp_2', T0 + 500, 'api'));
      await store.ensure(newSession('other:openai:openai', T0 + 600, 'api'));
    });
    afterEach(async () => {
      await fixture.close();
    });

    const keys = async (filter: Parameters<SessionPort['list']>[0]) =>
      (await store.list(filter)).map((session) => session.sessionKey);

    it("filters by the key's channel (a peer part is not a channel) and leaves listed channels out", async () => {
      expect(await keys({ channelId: 'webchat' })).toEqual(['default:bob:webchat:room', 'default:alice:webchat']);
      expect(await keys({ channelId: 'room' })).toEqual([]);
      expect(await keys({ channelId: 'openai', limit: 2 })).toEqual([
        'other:openai:openai',
        'default:openai:openai:resp_2',
      ]);
      expect(await keys({ excludeChannels: ['openai'] })).toEqual([
        'default:alice:telegram',
        'default:bob:webchat:room',
        'default:alice:webchat',
      ]);
      expect(await keys({ excludeChannels: ['openai', 'telegram'], ownedBy: 'alice' })).toEqual([
        'default:alice:webchat',
      ]);
    });

    it('filters by an update-time range, both ends included', async () => {
      expect(await keys({ updatedSince: T0 + 200, updatedBefore: T0 + 400 })).toEqual([
        'default:openai:openai:resp_1',
        'default:alice:telegram',
        'default:bob:webchat:room',
      ]);
      expect(await keys({ updatedBefore: T0 + 100 })).toEqual(['default:alice:webchat']);
    });

    it("records each turn's outcome, lists the last one with the summed usage and filters by it", async () => {
      const turn = (totalTokens: number, totalCost: number, outcome: 'completed' | 'error' | 'budget_exceeded') => ({
        totalTokens,
        totalCost,
        stepsExecuted: 1,
        requestedBy: 'alice',
        outcome,
      });
      await store.recordTurnUsage('default:alice:webchat', turn(100, 0.0002, 'error'), T0 + 700);
      await store.recordTurnUsage('default:alice:webchat', turn(50, 0.0001, 'completed'), T0 + 800);
      await store.recordTurnUsage('default:alice:telegram', turn(10, 0.5, 'budget_exceeded'), T0 + 900);
      const [telegram, webchat] = await store.list({ limit: 2 });
      expect(telegram).toMatchObject({ sessionKey: 'default:alice:telegram', lastOutcome: 'budget_exceeded' });
      expect(webchat).toMatchObject({
        sessionKey: 'default:alice:webchat',
        lastOutcome: 'completed',
        metadata: { usage: { totalTokens: 150, turns: 2 } },
      });
      expect(webchat?.metadata.usage).toMatchObject({ totalCost: expect.closeTo(0.0003, 9) as unknown });
      expect((await store.get('default:bob:webchat:room'))?.lastOutcome).toBeUndefined();
      expect(await keys({ outcome: 'completed' })).toEqual(['default:alice:webchat']);
      expect(await keys({ outcome: 'budget_exceeded', channelId: 'telegram' })).toEqual(['default:alice:telegram']);
      expect(await keys({ outcome: 'error' })).toEqual([]);
    });

    it('counts the sessions matching a filter per channel, whatever the page', async () => {
      const counts = async (filter: Parameters<SessionPort['countByChannel']>[0]) =>
        Object.fromEntries((await store.countByChannel(filter)).map(({ channelId, count }) => [channelId, count]));
      expect(await counts({})).toEqual({ webchat: 2, telegram: 1, openai: 3 });
      expect(await counts({ ownedBy: 'api', updatedSince: T0 + 450 })).toEqual({ openai: 2 });
      expect(await counts({ channelId: 'telegram' })).toEqual({ telegram: 1 });
      expect(await counts({ agentId: 'nobody' })).toEqual({});
      await store.recordTurnUsage(
        'default:bob:webchat:room',
        { totalTokens: 1, totalCost: 0, stepsExecuted: 1, requestedBy: 'bob', outcome: 'cancelled' },
        T0 + 1000,
      );
      expect(await counts({ outcome: 'cancelled', updatedBefore: T0 + 1000 })).toEqual({ webchat: 1 });
    });
  });
}
