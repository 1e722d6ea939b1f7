// obs.context.dag and obs.context.pipeline from the turn loop's context_budget records.
import { afterEach, describe, expect, it } from 'vitest';
import { startObs, type ObsStack } from './support.js';

describe('obs context reports', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  function budget(
    s: ObsStack,
    traceId: string,
    sessionKey: string,
    agentId: string,
    ts: number,
    data: Record<string, unknown>,
  ) {
    s.recorder.startSession({ traceId, sessionKey, agentId, channel: 'ws', startedAt: ts, isSynthetic: false });
    s.recorder.trajectory({
      sessionKey,
      traceId,
      kind: 'context_budget',
      ts,
      data: {
        windowTokens: 8192,
        systemTokens: 100,
        freshTailTokens: 20,
        budgetedHistoryTokens: 500,
        keptCount: 4,
        droppedCount: 0,
        assembledInputTokens: 620,
        outputHeadroom: 1024,
        verdict: 'fits',
        ...data,
      },
    });
  }

  it('dag: node counts, depths and compaction history per agent', async () => {
    stack = startObs();
    budget(stack, 't1', 'default:a:ws', 'default', 1, { keptCount: 2 });
    budget(stack, 't2', 'default:a:ws', 'default', 2, { keptCount: 6, droppedCount: 3, verdict: 'downshifted' });
    budget(stack, 't3', 'default:b:ws', 'default', 3, { keptCount: 1 });
    budget(stack, 't4', 'default:c:ws', 'helper', 4, {});
    expect(await stack.obs.context.dag({})).toEqual({
      records: 4,
      agents: [
        {
          agentId: 'default',
          sessions: 2,
          nodeCount: 9,
          maxDepth: 6,
          compactions: 1,
          compactionHistory: [
            { ts: 2, sessionKey: 'default:a:ws', traceId: 't2', droppedCount: 3, keptCount: 6, verdict: 'downshifted' },
          ],
        },
        { agentId: 'helper', sessions: 1, nodeCount: 5, maxDepth: 4, compactions: 0, compactionHistory: [] },
      ],
    });
    expect((await stack.obs.context.dag({ agentId: 'helper' })).agents.map((agent) => agent.agentId)).toEqual([
      'helper',
    ]);
  });

  it('pipeline: the latest layer configuration and token budgets per agent', async () => {
    stack = startObs();
    budget(stack, 't1', 'default:a:ws', 'default', 1, {});
    budget(stack, 't2', 'default:a:ws', 'default', 2, { systemTokens: 300, verdict: 'downshifted', droppedCount: 2 });
    expect(await stack.obs.context.pipeline({})).toEqual({
      agents: [
        {
          agentId: 'default',
          updatedAt: 2,
          windowTokens: 8192,
          outputHeadroom: 1024,
          assembledInputTokens: 620,
          verdict: 'downshifted',
          layers: [
            { layer: 'system', tokens: 300 },
            { layer: 'history', tokens: 500, keptCount: 4, droppedCount: 2 },
            { layer: 'freshTail', tokens: 20 },
            { layer: 'outputHeadroom', tokens: 1024 },
          ],
        },
      ],
    });
    expect(await stack.obs.context.pipeline({ agentId: 'nobody' })).toEqual({ agents: [] });
  });
});
