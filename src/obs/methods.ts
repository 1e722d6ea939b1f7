// obs.* methods: diagnostics (rpc), billing, channels, delivery, context, cache, trace search, explain, fleet health,
// audit, storage size and retention, and resets (admin). Thin adapters from RPC params to the observability services.
import { z } from 'zod';
import { defineMethod, noParams } from '../rpc/index.js';
import { AUDIT_MAX_LIMIT } from './audit.js';
import { SPEND_KEYS, SPEND_WINDOWS } from './billing-spend.js';
import { STALE_THRESHOLD_MS } from './channels.js';
import { DELIVERY_MAX_LIMIT } from './delivery.js';
import { DIAGNOSTICS_MAX_LIMIT } from './diagnostics.js';
import { FLEET_DEFAULT_SINCE_HOURS, RESETTABLE_TABLES, type Observability } from './observability.js';
import { TRACE_SEARCH_MAX_LIMIT } from './trace-search.js';
import { WHERE_MAX_LENGTH } from './where-filter.js';

const id = z.string().min(1).max(512);
const epochMs = z.number().int().nonnegative();
/** A positive count; values above the method's maximum are clamped by the service (spec: "clamped to 1000"). */
const limit = z.number().int().positive();
const sinceOnly = z.strictObject({ sinceMs: epochMs.optional() });
/** Reports that change nothing, named without a read verb: audited only with audit.reads (rpc/registry.ts). */
const reads = { readOnly: true } as const;

export function obsMethods({ obs }: { obs: Observability }) {
  return [
    defineMethod({
      name: 'obs.diagnostics',
      scope: 'rpc',
      summary: `Recent diagnostic events (scrubbed), newest first, and counts per category:kind; limit clamped to ${DIAGNOSTICS_MAX_LIMIT}.`,
      params: z.strictObject({
        category: z.string().min(1).max(64).optional(),
        limit: limit.optional(),
        sinceMs: epochMs.optional(),
      }),
      handler: (params) => obs.diagnostics.query(params),
    }),
    defineMethod({
      name: 'obs.billing.total',
      scope: 'admin',
      policy: reads,
      summary: 'Total cost, tokens, model calls and estimated cache savings (USD), optionally since an epoch ms.',
      params: sinceOnly,
      handler: (params) => obs.billing.total(params),
    }),
    defineMethod({
      name: 'obs.billing.byAgent',
      scope: 'admin',
      policy: reads,
      summary: "One agent's cost, tokens, calls and cache savings.",
      params: z.strictObject({ agentId: id, sinceMs: epochMs.optional() }),
      handler: ({ agentId, ...filter }) => obs.billing.byAgent(agentId, filter),
    }),
    defineMethod({
      name: 'obs.billing.bySession',
      scope: 'admin',
      policy: reads,
      summary: "One session's cost, tokens, calls and cache savings.",
      params: z.strictObject({ sessionKey: id, sinceMs: epochMs.optional() }),
      handler: ({ sessionKey, ...filter }) => obs.billing.bySession(sessionKey, filter),
    }),
    defineMethod({
      name: 'obs.billing.byProvider',
      scope: 'admin',
      policy: reads,
      summary: 'Input and output tokens and recorded cost per provider.',
      params: sinceOnly,
      handler: (params) => obs.billing.byProvider(params),
    }),
    defineMethod({
      name: 'obs.billing.usage24h',
      scope: 'admin',
      policy: reads,
      summary:
        'Tokens per UTC hour of day over the 24 hours ending with the current one (from the top of the hour 23 hours ago): 24 entries { hour, tokens }, hour 0 first.',
      params: noParams,
      handler: () => obs.billing.usage24h(),
    }),
    defineMethod({
      name: 'obs.billing.spend',
      scope: 'admin',
      policy: reads,
      summary:
        'Cost (USD), input/output tokens and calls per agent, provider/model or session owner token over the last 24h, 7d or 30d, costliest first (key null: sessions without an owner), with totals and a series of hourly (24h) or UTC-daily buckets whose last one holds now.',
      params: z.strictObject({ window: z.enum(SPEND_WINDOWS), by: z.enum(SPEND_KEYS) }),
      handler: (params) => obs.billing.spend(params),
    }),
    defineMethod({
      name: 'obs.channels.all',
      scope: 'admin',
      policy: reads,
      summary: 'Activity of every channel (live counters over stored history), most recently active first.',
      params: noParams,
      handler: async () => ({ channels: await obs.channels.all() }),
    }),
    defineMethod({
      name: 'obs.channels.get',
      scope: 'admin',
      summary: 'Activity of one channel, or null.',
      params: z.strictObject({ channelId: id }),
      handler: async ({ channelId }) => ({ channel: await obs.channels.get(channelId) }),
    }),
    defineMethod({
      name: 'obs.channels.stale',
      scope: 'admin',
      policy: reads,
      summary: `Channels idle for longer than thresholdMs (default ${STALE_THRESHOLD_MS}), longest idle first.`,
      params: z.strictObject({ thresholdMs: z.number().int().nonnegative().optional() }),
      handler: async ({ thresholdMs }) => ({ stale: await obs.channels.stale(thresholdMs) }),
    }),
    defineMethod({
      name: 'obs.delivery.recent',
      scope: 'admin',
      policy: reads,
      summary: `Recent delivery traces, newest first; limit default 100, clamped to ${DELIVERY_MAX_LIMIT}.`,
      params: z.strictObject({ sinceMs: epochMs.optional(), limit: limit.optional(), channelId: id.optional() }),
      handler: async (params) => ({ deliveries: await obs.delivery.recent(params) }),
    }),
    defineMethod({
      name: 'obs.delivery.stats',
      scope: 'admin',
      summary: 'Delivery totals: total, successes, failures and average latency in ms.',
      params: noParams,
      handler: () => obs.delivery.stats(),
    }),
    defineMethod({
      name: 'obs.context.dag',
      scope: 'admin',
      policy: reads,
      summary: 'Context snapshot per agent from the pre-flight records: node counts, depths and compaction history.',
      params: z.strictObject({ agentId: id.optional() }),
      handler: (params) => obs.context.dag(params),
    }),
    defineMethod({
      name: 'obs.context.pipeline',
      scope: 'admin',
      policy: reads,
      summary:
        "Each agent's latest context pipeline: layers (system, history, fresh tail, output headroom) and token budgets.",
      params: z.strictObject({ agentId: id.optional() }),
      handler: (params) => obs.context.pipeline(params),
    }),
    defineMethod({
      name: 'obs.getCacheStats',
      scope: 'admin',
      summary: 'Prompt cache statistics: hits, misses, hit rate, cached tokens, estimated savings, per provider.',
      params: noParams,
      handler: () => obs.cacheStats(),
    }),
    defineMethod({
      name: 'obs.trace.search',
      scope: 'admin',
      summary: `Session-index rows of the last two days, newest first within each day; limit default 200, clamped to ${TRACE_SEARCH_MAX_LIMIT}.`,
      params: z.strictObject({
        messageId: id.optional(),
        traceId: id.optional(),
        chatId: id.optional(),
        since: z.string().min(1).max(64).optional(),
        where: z.string().min(1).max(WHERE_MAX_LENGTH).optional(),
        limit: limit.optional(),
        includeSynthetic: z.boolean().optional(),
      }),
      handler: (params) => obs.traceSearch(params),
    }),
    defineMethod({
      name: 'obs.explain',
      scope: 'admin',
      policy: reads,
      summary: 'IncidentReport of one session from recorded evidence (no model call); or a session_not_found marker.',
      params: z
        .strictObject({
          sessionKey: id.optional(),
          traceId: id.optional(),
          rootRunId: id.optional(),
          depth: z.enum(['summary', 'full']).optional(),
          includeSynthetic: z.boolean().optional(),
        })
        .refine(
          (params) => params.sessionKey !== undefined || params.traceId !== undefined || params.rootRunId !== undefined,
          {
            message: 'needs at least one of sessionKey, traceId or rootRunId',
            path: ['sessionKey'],
          },
        ),
      handler: (params) => obs.explain(params),
    }),
    defineMethod({
      name: 'obs.fleet.health',
      scope: 'admin',
      policy: reads,
      summary: `FleetHealthReport of the last sinceHours hours (default ${FLEET_DEFAULT_SINCE_HOURS}).`,
      params: z.strictObject({ sinceHours: z.number().positive().finite().optional() }),
      handler: ({ sinceHours = FLEET_DEFAULT_SINCE_HOURS }) => obs.fleetHealth({ sinceHours }),
    }),
    defineMethod({
      name: 'obs.audit.query',
      scope: 'admin',
      summary: `Content-free audit rows, ts descending; tenant "" selects system events; since/until inclusive; limit default 200, clamped to ${AUDIT_MAX_LIMIT}. Answers { rows, nextCursor }: pass nextCursor as cursor (same filters) for the next page; null on the last.`,
      params: z.strictObject({
        kind: id.optional(),
        classification: id.optional(),
        agentId: id.optional(),
        tenant: z.string().max(512).optional(),
        outcome: id.optional(),
        since: epochMs.optional(),
        until: epochMs.optional(),
        limit: limit.optional(),
        cursor: z.string().min(1).max(1024).optional(),
      }),
      handler: (params) => obs.audit.page(params),
    }),
    defineMethod({
      name: 'obs.audit.facets',
      scope: 'admin',
      summary:
        'The values stored in the audit log, sorted, for filter dropdowns: { kinds, agentIds, outcomes, classifications, actors }.',
      params: noParams,
      handler: () => obs.audit.facets(),
    }),
    defineMethod({
      name: 'obs.storage.stats',
      scope: 'admin',
      summary:
        'Evidence tables (rows, oldest time, bytes), database bytes, obs.retentionDays and the last retention sweep.',
      params: noParams,
      handler: (_params, ctx) => obs.retention.report(ctx.signal),
    }),
    defineMethod({
      name: 'obs.storage.sweep',
      scope: 'admin',
      summary:
        'Runs the retention sweep now (or joins the running one): deletes evidence older than obs.retentionDays.',
      params: noParams,
      handler: () => obs.retention.sweepNow(),
    }),
    defineMethod({
      name: 'obs.reset',
      scope: 'admin',
      summary: 'Permanently deletes token usage, delivery traces, diagnostics and channel activity.',
      params: noParams,
      handler: async () => ({ reset: true, rowsDeleted: await obs.reset() }),
    }),
    defineMethod({
      name: 'obs.reset.table',
      scope: 'admin',
      summary: 'Permanently deletes one table: token_usage, delivery, diagnostics or channels.',
      params: z.strictObject({ table: z.enum(RESETTABLE_TABLES) }),
      handler: async ({ table }) => ({ reset: true, table, rowsDeleted: await obs.resetTable(table) }),
    }),
  ];
}
