// obs.context.dag and obs.context.pipeline, read from the turn loop's context_budget trajectory records.
import type { EvidencePort } from '../store/index.js';
import { TRAJECTORY_KIND } from './evidence/kinds.js';
import { compareText, count, str, type Data } from './evidence/read.js';

/** The newest this many context_budget records are read. */
export const CONTEXT_RECORDS_READ = 5000;
const HISTORY_CAP = 20;

export interface BudgetRecord {
  ts: number;
  sessionKey: string;
  traceId: string;
  agentId: string;
  data: Data;
}

export interface ContextDag {
  records: number;
  agents: {
    agentId: string;
    sessions: number;
    /** Messages in each session's latest assembled context (kept history plus the fresh tail), summed. */
    nodeCount: number;
    /** The longest kept history chain of any session. */
    maxDepth: number;
    compactions: number;
    /** Turns whose pre-flight dropped history, newest first. */
    compactionHistory: {
      ts: number;
      sessionKey: string;
      traceId: string;
      droppedCount: number;
      keptCount: number;
      verdict: string;
    }[];
  }[];
}

export interface ContextPipeline {
  agents: {
    agentId: string;
    updatedAt: number;
    windowTokens: number;
    outputHeadroom: number;
    assembledInputTokens: number;
    verdict: string;
    layers: {
      layer: 'system' | 'history' | 'freshTail' | 'outputHeadroom';
      tokens: number;
      keptCount?: number;
      droppedCount?: number;
    }[];
  }[];
}

function byAgent(records: readonly BudgetRecord[]): Map<string, BudgetRecord[]> {
  const groups = new Map<string, BudgetRecord[]>();
  for (const record of records) groups.set(record.agentId, [...(groups.get(record.agentId) ?? []), record]);
  return new Map([...groups.entries()].sort(([a], [b]) => compareText(a, b)));
}

/** Pure: records oldest first in, the DAG snapshot out. */
export function contextDag(records: readonly BudgetRecord[]): ContextDag {
  const agents = [...byAgent(records)].map(([agentId, list]) => {
    const latest = new Map<string, BudgetRecord>();
    for (const record of list) latest.set(record.sessionKey, record);
    const compacted = list.filter((record) => count(record.data.droppedCount) > 0);
    return {
      agentId,
      sessions: latest.size,
      nodeCount: [...latest.values()].reduce((sum, record) => sum + count(record.data.keptCount) + 1, 0),
      maxDepth: Math.max(0, ...[...latest.values()].map((record) => count(record.data.keptCount))),
      compactions: compacted.length,
      compactionHistory: compacted
        .slice(-HISTORY_CAP)
        .reverse()
        .map((record) => ({
          ts: record.ts,
          sessionKey: record.sessionKey,
          traceId: record.traceId,
          droppedCount: count(record.data.droppedCount),
          keptCount: count(record.data.keptCount),
          verdict: str(record.data.verdict) ?? 'fits',
        })),
    };
  });
  return { records: records.length, agents };
}

/** Pure: the layer configuration and token budgets of each agent's latest pre-flight. */
export function contextPipeline(records: readonly BudgetRecord[]): ContextPipeline {
  const agents = [...byAgent(records)].flatMap(([agentId, list]) => {
    const last = list.at(-1);
    if (last === undefined) return [];
    const { data } = last;
    return [
      {
        agentId,
        updatedAt: last.ts,
        windowTokens: count(data.windowTokens),
        outputHeadroom: count(data.outputHeadroom),
        assembledInputTokens: count(data.assembledInputTokens),
        verdict: str(data.verdict) ?? 'fits',
        layers: [
          { layer: 'system' as const, tokens: count(data.systemTokens) },
          {
            layer: 'history' as const,
            tokens: count(data.budgetedHistoryTokens),
            keptCount: count(data.keptCount),
            droppedCount: count(data.droppedCount),
          },
          { layer: 'freshTail' as const, tokens: count(data.freshTailTokens) },
          { layer: 'outputHeadroom' as const, tokens: count(data.outputHeadroom) },
        ],
      },
    ];
  });
  return { agents };
}

export interface ContextReports {
  dag(filter: { agentId?: string }): Promise<ContextDag>;
  pipeline(filter: { agentId?: string }): Promise<ContextPipeline>;
}

export function createContextReports({
  port,
  flush,
}: {
  port: EvidencePort;
  flush: () => Promise<void>;
}): ContextReports {
  const query = async (agentId: string | undefined): Promise<BudgetRecord[]> => {
    await flush();
    const records = await port.trajectoryOfKind({
      kind: TRAJECTORY_KIND.contextBudget,
      ...(agentId === undefined ? {} : { agentId }),
      newest: CONTEXT_RECORDS_READ,
    });
    return records.map((record) => ({
      ts: record.ts,
      sessionKey: record.sessionKey,
      traceId: record.traceId,
      agentId: record.agentId,
      data: record.data,
    }));
  };
  return {
    dag: async ({ agentId }) => contextDag(await query(agentId)),
    pipeline: async ({ agentId }) => contextPipeline(await query(agentId)),
  };
}
