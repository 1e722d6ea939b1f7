// JSON-RPC 2.0 dispatch shared by /ws and POST /rpc: parse, batch, validate, scope check, call, map errors.
import type { Caller, Transport } from '../server/types.js';
import type { MethodRegistry } from './types.js';
import type { Logger } from 'pino';
import {
  GatewayError,
  insufficientScope,
  maskUnknown,
  methodNotFound,
  paramsTooLarge,
  publicMessage,
  type ErrorKind,
} from '../errors.js';
import { grantsMethodScope } from '../server/index.js';
import { createTraceIds, runInTrace, type TraceParent } from '../tracing/index.js';
import { RPC_CODE } from './error-codes.js';
import { formatParamIssues } from './param-issues.js';
import { noParams } from './registry.js';

export type JsonRpcId = string | number | null;

/** DESIGN §3: what a client branches on without parsing the message. */
export interface JsonRpcErrorData {
  kind: ErrorKind;
  param?: string;
  retryAfterMs?: number;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: JsonRpcErrorData;
}

export type JsonRpcResponse =
  { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject };

export interface DispatchContext {
  caller: Caller;
  transport: Transport;
  log: Logger;
  signal: AbortSignal;
  /** The HTTP request's trace id (or the WebSocket upgrade's traceparent's); a WebSocket call gets a fresh one per request. */
  traceId?: string;
  /** With tracing on, the span a WebSocket call nests under: the upgrade's traceparent. */
  trace?: TraceParent;
}

export type DispatchOutcome = JsonRpcResponse | JsonRpcResponse[] | null;

export interface Dispatcher {
  /** Parses `text` and dispatches it; null means nothing is sent back (notifications only). */
  dispatchText(text: string, ctx: DispatchContext): Promise<DispatchOutcome>;
  dispatch(message: unknown, ctx: DispatchContext): Promise<DispatchOutcome>;
}

/**
 * One audited call: methods whose policy says audit (admin by default; readOnly ones only with auditReads), and any
 * call refused as forbidden. Content-free.
 */
export interface AuditedCall {
  method: string;
  scope: 'rpc' | 'admin';
  clientId: string;
  transport: Transport;
  traceId: string;
  outcome: 'ok' | 'denied' | 'error';
  errorKind?: string;
}

export interface DispatcherDeps {
  registry: MethodRegistry;
  /** Requests one batch may hold; a function is read at each batch (gateway.maxBatchSize applies live). */
  maxBatchSize: number | (() => number);
  audit?: (call: AuditedCall) => void;
  /** Tracing is on: a WebSocket call's handler runs in its trace (an HTTP call's already runs in its request's). */
  isTraced?: boolean;
  /** Whether calls of readOnly methods are audited too (config audit.reads), read at each call. Default: never. */
  auditReads?: () => boolean;
}

export function errorResponse(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}

/** The JSON-RPC error object for a gateway error; unknown failures never leak their message. */
export function toRpcError(error: GatewayError): JsonRpcErrorObject {
  const message = publicMessage(error);
  const { param, retryAfterMs } = error.details;
  const data: JsonRpcErrorData = { kind: error.kind };
  if (typeof param === 'string') data.param = param;
  if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs))
    data.retryAfterMs = Math.max(0, Math.ceil(retryAfterMs));
  return { code: RPC_CODE[error.kind], message, data };
}

export const PARSE_ERROR: JsonRpcResponse = errorResponse(null, { code: RPC_CODE.parse_error, message: 'Parse error' });

const NOT_AN_OBJECT: JsonRpcErrorObject = {
  code: RPC_CODE.invalid_request,
  message: 'Invalid Request: expected an object',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readId(message: Record<string, unknown>): JsonRpcId {
  const { id } = message;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

export function createDispatcher({
  registry,
  maxBatchSize,
  audit,
  isTraced = false,
  auditReads,
}: DispatcherDeps): Dispatcher {
  // Per-call W3C trace ids: a per-dispatcher prefix and a counter, cheaper than a random UUID on every message.
  const nextTraceId = createTraceIds();

  async function callOne(message: unknown, ctx: DispatchContext): Promise<JsonRpcResponse | null> {
    if (!isPlainObject(message)) return errorResponse(null, NOT_AN_OBJECT);
    const isNotification = !('id' in message);
    const id = readId(message);
    const invalid = validateEnvelope(message);
    if (invalid !== undefined) return errorResponse(id, { code: RPC_CODE.invalid_request, message: invalid });

    const method = registry.get(String(message.method));
    if (method === undefined) {
      if (isNotification) return null;
      return errorResponse(id, {
        code: RPC_CODE.method_not_found,
        message: methodNotFound(String(message.method)).message,
      });
    }
    const traceId = ctx.traceId ?? nextTraceId();
    const isDebug = ctx.log.isLevelEnabled('debug');
    const startedAt = isDebug ? performance.now() : 0;
    let response: JsonRpcResponse;
    let failureKind: string | undefined;
    try {
      if (!grantsMethodScope(ctx.caller, method.scope, ctx.transport)) throw insufficientScope(method.scope);
      const rawParams = namedParams(message.params);
      const { maxParamsBytes } = method.policy;
      if (maxParamsBytes !== undefined && Buffer.byteLength(JSON.stringify(rawParams)) > maxParamsBytes)
        throw paramsTooLarge(method.name, maxParamsBytes);
      // Fast path for the common parameterless call (system.ping): nothing to validate.
      const parsed =
        method.params === noParams && Object.keys(rawParams).length === 0
          ? { success: true as const, data: {} }
          : method.params.safeParse(rawParams);
      if (!parsed.success) {
        const { text, param } = formatParamIssues(parsed.error.issues);
        throw new GatewayError('invalid_params', `Invalid params: ${text}`, param === undefined ? {} : { param });
      }
      const handle = () =>
        method.handler(parsed.data, {
          caller: ctx.caller,
          transport: ctx.transport,
          log: ctx.log,
          traceId,
          signal: ctx.signal,
        });
      const result = await (isTraced && ctx.transport === 'ws'
        ? runInTrace(ctx.trace ?? { traceId, sampled: true, isRemote: false }, handle)
        : handle());
      response = { jsonrpc: '2.0', id, result: result ?? null };
    } catch (error) {
      const gatewayError = maskUnknown(error, ctx.log, { method: method.name, traceId }, 'JSON-RPC handler failed');
      failureKind = gatewayError.kind;
      response = errorResponse(id, toRpcError(gatewayError));
    }
    if (isDebug) ctx.log.debug({ method: method.name, traceId, ms: performance.now() - startedAt }, 'rpc call');
    const { policy } = method;
    const audited = policy.audit && (!policy.readOnly || auditReads?.() === true);
    if (audit !== undefined && (audited || failureKind === 'forbidden')) {
      audit({
        method: method.name,
        scope: method.scope,
        clientId: ctx.caller.clientId,
        transport: ctx.transport,
        traceId,
        outcome: failureKind === undefined ? 'ok' : failureKind === 'forbidden' ? 'denied' : 'error',
        ...(failureKind === undefined ? {} : { errorKind: failureKind }),
      });
    }
    return isNotification ? null : response;
  }

  async function dispatch(message: unknown, ctx: DispatchContext): Promise<DispatchOutcome> {
    if (!Array.isArray(message)) return callOne(message, ctx);
    // JSON-RPC 2.0 §6: an empty array is one Invalid Request, not an empty answer.
    if (message.length === 0) {
      return errorResponse(null, { code: RPC_CODE.invalid_request, message: 'Invalid Request: empty batch' });
    }
    const batchLimit = typeof maxBatchSize === 'number' ? maxBatchSize : maxBatchSize();
    if (message.length > batchLimit) {
      return errorResponse(null, {
        code: RPC_CODE.invalid_request,
        message: `Batch of ${message.length} requests exceeds maximum of ${batchLimit}`,
      });
    }
    const responses = await Promise.all(message.map((item) => callOne(item, ctx)));
    const answered = responses.filter((response): response is JsonRpcResponse => response !== null);
    return answered.length === 0 ? null : answered;
  }

  return {
    dispatch,
    async dispatchText(text, ctx) {
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        return PARSE_ERROR;
      }
      return dispatch(message, ctx);
    },
  };
}

/** The -32600 answer to a message that is not a JSON-RPC request (or notification) at all; undefined for one that is. */
export function invalidRequest(message: unknown): JsonRpcResponse | undefined {
  if (!isPlainObject(message)) return errorResponse(null, NOT_AN_OBJECT);
  const invalid = validateEnvelope(message);
  return invalid === undefined
    ? undefined
    : errorResponse(readId(message), { code: RPC_CODE.invalid_request, message: invalid });
}

/**
 * The named params of a call. Absent params and `[]` (jayson's and other positional clients' "no params") are none;
 * any other array is positional, which no method takes.
 */
function namedParams(params: unknown): Record<string, unknown> {
  if (params === undefined || (Array.isArray(params) && params.length === 0)) return {};
  if (!isPlainObject(params)) {
    throw new GatewayError(
      'invalid_params',
      'Invalid params: positional params (an array) are not supported; params must be an object of named parameters',
      { param: 'params' },
    );
  }
  return params;
}

function validateEnvelope(message: Record<string, unknown>): string | undefined {
  if (message.jsonrpc !== '2.0') return 'Invalid Request: jsonrpc must be "2.0"';
  if (typeof message.method !== 'string' || message.method.length === 0) {
    return 'Invalid Request: method must be a non-empty string';
  }
  if ('id' in message && message.id !== null && typeof message.id !== 'string' && !Number.isInteger(message.id)) {
    return 'Invalid Request: id must be an integer or a string';
  }
  // JSON-RPC 2.0 §4.2: params, when present, is an object or an array (never null or a scalar).
  if ('params' in message && (typeof message.params !== 'object' || message.params === null)) {
    return 'Invalid Request: params must be an object';
  }
  return undefined;
}
