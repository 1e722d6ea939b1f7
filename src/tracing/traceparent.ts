// W3C Trace Context: reads and writes the `traceparent` header (version 00), and the gateway's own 32-hex trace ids.
import { randomBytes } from 'node:crypto';

/** Where a span joins a trace: the trace, the span it nests under (absent: a trace's root) and the sampling flag. */
export interface TraceParent {
  traceId: string;
  /** The parent span; absent when the gateway starts the trace itself under `traceId`. */
  spanId?: string;
  sampled: boolean;
  /** The parent came from outside the process (a caller's traceparent). */
  isRemote: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const TRACE_ID = /^[0-9a-f]{32}$/;

/** Whether `id` is a valid W3C trace id (32 lower-case hex digits, not all zero). */
export function isTraceId(id: string): boolean {
  return TRACE_ID.test(id) && id !== ZERO_TRACE;
}

/**
 * The caller's parent from a `traceparent` header; undefined when absent or invalid (the request then starts a
 * trace of its own: an invalid header is ignored, never refused). Version ff and all-zero ids are invalid; a later
 * version is read by its first four fields, as the spec asks.
 */
export function parseTraceparent(header: string | string[] | undefined): TraceParent | undefined {
  if (typeof header !== 'string' || header.length > 512) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1, isRemote: true };
}

/** The `traceparent` header naming `spanId` of `traceId` as the parent. */
export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/**
 * W3C-valid trace ids unique across restarts without a random draw per request: a per-process random prefix of 12
 * hex digits and a 20-digit counter (randomUUID on every request cost a measurable share of a /health round trip).
 */
export function createTraceIds(): () => string {
  const bootId = randomBytes(6).toString('hex');
  let sequence = 0;
  return () => bootId + (sequence += 1).toString(16).padStart(20, '0');
}
