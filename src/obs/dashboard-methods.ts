// The obs.* methods the dashboard's trace and cost views read: one turn's waterfall and spend over rolling windows.
import { z } from 'zod';
import { defineMethod } from '../rpc/index.js';
import { grantsMethodScope } from '../server/index.js';
import type { TraceReader } from './trace-get.js';
import type { TraceWaterfall } from './trace-waterfall.js';

const id = z.string().min(1).max(512);

export interface DashboardObs {
  getTrace(traceId: string, reader: TraceReader): Promise<TraceWaterfall>;
}

export function dashboardObsMethods({ dashboard }: { dashboard: DashboardObs }) {
  return [
    defineMethod({
      name: 'obs.trace.get',
      scope: 'rpc',
      summary:
        "One turn's waterfall from its recorded evidence: { traceId, sessionKey, agentId, channel, startedAt, endedAt, durationMs, endReason, degraded, totals { inputTokens, outputTokens, costUsd, modelCalls, toolCalls, toolFailures }, spans, spanCount, truncated, spanCap, stepsCapped }. Spans (kind model, model_error, tool, approval, orchestrate, terminal; each with name, startOffsetMs from the turn's start, durationMs or null, outcome, step) ordered by start, at most spanCap. An admin reads any turn, an rpc token only its own sessions' (another's: forbidden); an unknown traceId is not_found.",
      params: z.strictObject({ traceId: id }),
      policy: { readOnly: true },
      handler: ({ traceId }, ctx) =>
        dashboard.getTrace(traceId, {
          clientId: ctx.caller.clientId,
          isAdmin: grantsMethodScope(ctx.caller, 'admin', 'http'),
        }),
    }),
  ];
}
