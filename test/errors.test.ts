// The error catalogue: every kind is mapped on every surface, framework errors become kinds, one mask and one issue reader.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentNotFound,
  agentSuspended,
  bracketPath,
  dottedPath,
  ERROR_KINDS,
  firstIssue,
  GatewayError,
  maskUnknown,
  publicMessage,
  readIssues,
  responseForbidden,
  retryAfterHeaderSeconds,
  sessionForbidden,
  toGatewayError,
} from '../src/errors.js';
import { RPC_CODE, WS_RATE_LIMIT_CODE } from '../src/rpc/index.js';
import { HTTP_STATUS } from '../src/server/index.js';

describe('error catalogue', () => {
  it('maps every error kind to a JSON-RPC code and an HTTP status, and nothing else', () => {
    expect(Object.keys(RPC_CODE).sort()).toEqual([...ERROR_KINDS].sort());
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_KINDS].sort());
  });

  it('uses the spec codes: the standard ones for the transport errors, -32603 for every handler failure', () => {
    expect(RPC_CODE.parse_error).toBe(-32700);
    expect(RPC_CODE.invalid_request).toBe(-32600);
    expect(RPC_CODE.payload_too_large).toBe(-32600);
    expect(RPC_CODE.method_not_found).toBe(-32601);
    expect(RPC_CODE.invalid_params).toBe(-32602);
    const transport = new Set<string>([
      'parse_error',
      'invalid_request',
      'payload_too_large',
      'method_not_found',
      'invalid_params',
    ]);
    for (const kind of ERROR_KINDS.filter((candidate) => !transport.has(candidate)))
      expect(RPC_CODE[kind], kind).toBe(-32603);
    // -32000 belongs to the WebSocket message rate limit alone, which the transport answers itself.
    expect(Object.values(RPC_CODE)).not.toContain(WS_RATE_LIMIT_CODE);
    expect(WS_RATE_LIMIT_CODE).toBe(-32000);
  });

  it('turns retryAfterMs into a Retry-After value in whole seconds, rounded up, at least 1', () => {
    expect(retryAfterHeaderSeconds({ retryAfterMs: 30_000 })).toBe('30');
    expect(retryAfterHeaderSeconds({ retryAfterMs: 17_500 })).toBe('18');
    expect(retryAfterHeaderSeconds({ retryAfterMs: 0 })).toBe('1');
    expect(retryAfterHeaderSeconds({})).toBeUndefined();
  });

  it('names a refused session or response without saying whose it is', () => {
    expect(sessionForbidden('default:admin:rpc')).toMatchObject({
      kind: 'forbidden',
      message: 'Session default:admin:rpc belongs to another client',
    });
    expect(responseForbidden('resp_1')).toMatchObject({
      kind: 'forbidden',
      message: 'Response resp_1 belongs to another client',
      details: { param: 'previous_response_id' },
    });
  });

  it('uses the DESIGN.md HTTP statuses', () => {
    expect(HTTP_STATUS).toMatchObject({
      unauthorized: 401,
      forbidden: 403,
      invalid_request: 400,
      not_found: 404,
      payload_too_large: 413,
      rate_limited: 429,
      internal: 500,
    });
  });

  it('passes a GatewayError through unchanged', () => {
    const error = new GatewayError('gone', 'expired');
    expect(toGatewayError(error)).toBe(error);
  });

  it('turns framework errors with a known statusCode into their kind, keeping the cause', () => {
    const cases: [number, string][] = [
      [400, 'invalid_request'],
      [401, 'unauthorized'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [413, 'payload_too_large'],
      [415, 'invalid_request'],
      [429, 'rate_limited'],
    ];
    for (const [statusCode, kind] of cases) {
      const cause = Object.assign(new Error(`framework ${statusCode}`), { statusCode });
      const mapped = toGatewayError(cause);
      expect(mapped.kind).toBe(kind);
      expect(mapped.message).toBe(`framework ${statusCode}`);
      expect(mapped.cause).toBe(cause);
    }
  });

  it('turns an unreachable database or Redis into unavailable with a retry hint, not internal', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const causes = [
      refused,
      new AggregateError(
        [refused, Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })],
        '',
      ),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection is closed.'),
      new Error('Command timed out'),
      Object.assign(new Error('Reached the max retries per request limit (which is 1).'), {
        name: 'MaxRetriesPerRequestError',
      }),
      new Error('a query failed', { cause: refused }),
    ];
    for (const cause of causes) {
      const mapped = toGatewayError(cause);
      expect(mapped.kind, cause.message).toBe('unavailable');
      expect(mapped.details.retryAfterMs, cause.message).toBeGreaterThan(0);
      // The address and port of the database stay in the log.
      expect(publicMessage(mapped)).not.toContain('5432');
      expect(mapped.cause).toBe(cause);
    }
    // A statement the database refused is a bug or a conflict, not an outage.
    expect(toGatewayError(Object.assign(new Error('duplicate key'), { code: '23505' })).kind).toBe('internal');
  });

  it('turns an AbortError (a client that hung up, a shutdown) into unavailable, which no surface logs as a failure', () => {
    const log = recordingLog();
    const aborted = new DOMException('This operation was aborted', 'AbortError');
    expect(maskUnknown(aborted, log, {}, 'handler failed').kind).toBe('unavailable');
    expect(log.lines).toEqual([]);
  });

  it('turns anything else into internal with a generic message that does not leak the original', () => {
    for (const cause of [
      new Error('db password is hunter2'),
      Object.assign(new Error('boom'), { statusCode: 502 }),
      'a string',
      null,
    ]) {
      const mapped = toGatewayError(cause);
      expect(mapped.kind).toBe('internal');
      expect(mapped.message).toBe('Internal error');
      expect(mapped.cause).toBe(cause);
    }
  });
});

function recordingLog() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  return { lines, error: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) };
}

describe('unknown-error mask', () => {
  it('logs an unknown failure with its cause and the given fields, and shows the client only "Internal error"', () => {
    const log = recordingLog();
    const cause = new Error('SQLITE_BUSY: database is locked at /secret/path');
    const masked = maskUnknown(cause, log, { traceId: 't-1' }, 'handler failed');
    expect(masked.kind).toBe('internal');
    expect(publicMessage(masked)).toBe('Internal error');
    expect(log.lines).toEqual([{ fields: { err: cause, traceId: 't-1' }, message: 'handler failed' }]);
  });

  it('passes a known failure through with its own message and logs nothing', () => {
    const log = recordingLog();
    const known = agentNotFound('ghost');
    expect(maskUnknown(known, log, {}, 'x')).toBe(known);
    expect(publicMessage(known)).toBe("Agent 'ghost' not found");
    expect(log.lines).toEqual([]);
  });

  it('hides the message of an internal GatewayError too', () => {
    expect(publicMessage(new GatewayError('internal', 'git commit left no HEAD'))).toBe('Internal error');
  });

  it('words one failure one way wherever it is raised', () => {
    expect(agentSuspended('ops')).toMatchObject({
      kind: 'conflict',
      message: "Agent 'ops' is suspended and accepts no new messages",
      details: { param: 'agentId' },
    });
    expect(agentSuspended('ops', 'model').details).toEqual({ param: 'model' });
  });
});

describe('zod issue reader', () => {
  const schema = z.strictObject({ name: z.string(), items: z.array(z.strictObject({ n: z.number() })) });

  it('splits unknown keys into one issue each, with the key in the path', () => {
    const parsed = schema.safeParse({ name: 'a', items: [], x: 1, y: 2 });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(readIssues(parsed.error.issues).map((issue) => [issue.problem, dottedPath(issue.path)])).toEqual([
      ['unknown_key', 'x'],
      ['unknown_key', 'y'],
    ]);
  });

  it('tells a missing value from a bad one, prefers unknown keys, and prints both path forms', () => {
    const parsed = schema.safeParse({ items: [{ n: 'one' }], extra: true });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const issues = readIssues(parsed.error.issues);
    expect(issues.map((issue) => issue.problem).sort()).toEqual(['invalid', 'missing', 'unknown_key']);
    const bad = issues.find((issue) => issue.problem === 'invalid');
    expect(bad && [dottedPath(bad.path), bracketPath(bad.path), bad.reason]).toEqual([
      'items.0.n',
      'items[0].n',
      'expected number, received string',
    ]);
    expect(firstIssue(parsed.error.issues)?.problem).toBe('unknown_key');
  });
});
