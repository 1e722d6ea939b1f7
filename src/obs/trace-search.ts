// obs.trace.search: the last two days of session-index rows, filtered, newest first within each day.
import type { EvidencePort } from '../store/index.js';
import type { SessionIndexEvidence } from './evidence/records.js';
import { parseSince, parseWhere } from './where-filter.js';

/** Spec Limits: limit default 200, maximum 1000 (larger values are clamped); lookback two days. */
export const TRACE_SEARCH_DEFAULT_LIMIT = 200;
export const TRACE_SEARCH_MAX_LIMIT = 1000;
export const TRACE_LOOKBACK_DAYS = 2;

export interface TraceSearchParams {
  messageId?: string;
  traceId?: string;
  /** A session key, or a channel name. */
  chatId?: string;
  since?: string;
  where?: string;
  limit?: number;
  includeSynthetic?: boolean;
}

/** A session-index row as obs.trace.search returns it (the evidence row, with the wire name `synthetic`). */
export type TraceRow = Omit<SessionIndexEvidence, 'isSynthetic'> & { synthetic: boolean };

export interface TraceSearchDeps {
  port: EvidencePort;
  flush: () => Promise<void>;
  now: () => number;
}

const DAY_MS = 86_400_000;

/** The UTC days the lookback reads, newest first (session_index.day values). */
export function lookbackDays(nowMs: number): string[] {
  return Array.from({ length: TRACE_LOOKBACK_DAYS }, (_, back) =>
    new Date(nowMs - back * DAY_MS).toISOString().slice(0, 10),
  );
}

export function createTraceSearch({ port, flush, now }: TraceSearchDeps): {
  search(params: TraceSearchParams): Promise<{ rows: TraceRow[] }>;
} {
  return {
    async search(params) {
      const nowMs = now();
      // Validate before any work (a malformed filter is the caller's error, not an empty result).
      const conditions = params.where === undefined ? undefined : parseWhere(params.where);
      const sinceMs = params.since === undefined ? undefined : parseSince(params.since, nowMs);
      await flush();
      const rows = await port.searchTraces({
        days: lookbackDays(nowMs),
        ...(params.traceId === undefined ? {} : { traceId: params.traceId }),
        ...(params.messageId === undefined ? {} : { messageId: params.messageId }),
        ...(params.chatId === undefined ? {} : { chatId: params.chatId }),
        ...(sinceMs === undefined ? {} : { sinceMs }),
        includeSynthetic: params.includeSynthetic === true,
        ...(conditions === undefined ? {} : { conditions }),
        limit: Math.min(params.limit ?? TRACE_SEARCH_DEFAULT_LIMIT, TRACE_SEARCH_MAX_LIMIT),
      });
      return { rows: rows.map(({ isSynthetic, ...row }) => ({ ...row, synthetic: isSynthetic })) };
    },
  };
}
