// JSON-RPC 2.0 dispatch shared by /ws and /rpc: envelopes, batches, notifications, params and error mapping.
import type { MethodContext } from '../../src/rpc/types.js';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, GatewayError, type ErrorKind } from '../../src/errors.js';
import { createLogger } from '../../src/obs/logger.js';
import {
  createDispatcher,
  createRegistry,
  defineMethod,
  noParams,
  type DispatchContext,
  type DispatchOutcome,
} from '../../src/rpc/index.js';

interface Captured {
  lines: string[];
  ctx: DispatchContext;
}

function context(
  scopes: DispatchContext['caller']['scopes'] = ['*'],
  transport: DispatchContext['transport'] = 'http',
): Captured {
  const lines: string[] = [];
  const log = createLogger({ level: 'error', destination: { write: (line: string) => void lines.push(line) } });
  return {
    lines,
    ctx: {
      caller: { clientId: 'tester', scopes },
      transport,
      log,
      signal: new AbortController().signal,
      traceId: 'trace-1',
    },
  };
}

const seen: MethodContext[] = [];
let thrown: GatewayError = new GatewayError('internal', 'unset');
const calls: string[] = [];

const registry = createRegistry([
  defineMethod({ name: 'demo.ping', scope: 'rpc', summary: 'ping', params: noParams, handler: () => ({ pong: true }) }),
  defineMethod({
    name: 'demo.add',
    scope: 'rpc',
    summary: 'a + b',
    params: z.strictObject({ a: z.number(), b: z.number().default(0) }),
    handler: ({ a, b }) => a + b,
  }),
  defineMethod({
    name: 'demo.nested',
    scope: 'rpc',
    summary: 'nested',
    params: z.strictObject({ key: z.strictObject({ tenantId: z.string() }) }),
    handler: () => 'ok',
  }),
  defineMethod({
    name: 'demo.void',
    scope: 'rpc',
    summary: 'returns nothing',
    params: noParams,
    handler: () => undefined,
  }),
  defineMethod({
    name: 'demo.record',
    scope: 'rpc',
    summary: 'records the call',
    params: z.strictObject({ tag: z.string() }),
    handler: ({ tag }, ctx) => {
      calls.push(tag);
      seen.push(ctx);
      return tag;
    },
  }),
  defineMethod({
    name: 'demo.admin',
    scope: 'admin',
    summary: 'admin only',
    params: noParams,
    handler: () => 'secret stuff',
  }),
  defineMethod({
    name: 'demo.crash',
    scope: 'rpc',
    summary: 'throws an unknown error',
    params: noParams,
    handler: () => {
      throw new Error('connection string postgres://user:hunter2@db');
    },
  }),
  defineMethod({
    name: 'demo.reject',
    scope: 'rpc',
    summary: 'rejects asynchronously',
    params: noParams,
    handler: async () => Promise.reject(new TypeError('cannot read x of undefined')),
  }),
  defineMethod({
    name: 'demo.missing',
    scope: 'rpc',
    summary: 'throws a known error',
    params: noParams,
    handler: () => {
      throw new GatewayError('not_found', 'Thing not found', { param: 'id' });
    },
  }),
  defineMethod({
    name: 'demo.throws',
    scope: 'rpc',
    summary: 'throws whatever error the test set',
    params: noParams,
    handler: () => {
      throw thrown;
    },
  }),
]);

const dispatcher = createDispatcher({ registry, maxBatchSize: 3 });

async function send(message: unknown, captured: Captured = context()): Promise<DispatchOutcome> {
  return dispatcher.dispatch(message, captured.ctx);
}

const request = (method: string, id: number | string = 1, params?: unknown) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

describe('rpc dispatch', () => {
  it('answers a call with its result and the same id, number or string', async () => {
    expect(await send(request('demo.ping', 7))).toEqual({ jsonrpc: '2.0', id: 7, result: { pong: true } });
    expect(await send(request('demo.ping', 'abc'))).toEqual({ jsonrpc: '2.0', id: 'abc', result: { pong: true } });
  });

  it('passes parsed params with defaults, and answers null for a handler returning nothing', async () => {
    expect(await send(request('demo.add', 1, { a: 2 }))).toEqual({ jsonrpc: '2.0', id: 1, result: 2 });
    expect(await send(request('demo.add', 1, { a: 2, b: 3 }))).toEqual({ jsonrpc: '2.0', id: 1, result: 5 });
    expect(await send(request('demo.void'))).toEqual({ jsonrpc: '2.0', id: 1, result: null });
  });

  it('gives the handler the caller, transport, trace id and signal of the call', async () => {
    const captured = context(['rpc'], 'ws');
    await send(request('demo.record', 1, { tag: 'ctx' }), captured);
    const ctx = seen.at(-1);
    expect(ctx?.caller).toEqual({ clientId: 'tester', scopes: ['rpc'] });
    expect(ctx?.transport).toBe('ws');
    expect(ctx?.traceId).toBe('trace-1');
    expect(ctx?.signal).toBe(captured.ctx.signal);
  });

  it('answers -32601 for an unknown method, naming it', async () => {
    expect(await send(request('demo.nope', 3))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found: demo.nope' },
    });
  });

  it('answers -32602 naming an unknown param', async () => {
    const response = await send(request('demo.add', 1, { a: 1, c: 2 }));
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: "Invalid params: unknown param 'c'",
        data: { kind: 'invalid_params', param: 'c' },
      },
    });
  });

  it('answers -32602 naming a param of the wrong type or a missing one', async () => {
    const wrongType = await send(request('demo.add', 1, { a: 'one' }));
    expect(wrongType).toMatchObject({ id: 1, error: { code: -32602, data: { kind: 'invalid_params', param: 'a' } } });
    expect(JSON.stringify(wrongType)).toMatch(/Invalid params: 'a' expected number/);
    expect(await send(request('demo.add', 1, {}))).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'a' } },
    });
  });

  it('names a nested param by its dotted path', async () => {
    const response = await send(request('demo.nested', 1, { key: { tenantId: 5 } }));
    expect(response).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'key.tenantId' } },
    });
    expect(await send(request('demo.nested', 1, { key: { tenantId: 't', extra: 1 } }))).toMatchObject({
      error: { code: -32602, message: "Invalid params: unknown param 'key.extra'" },
    });
  });

  it('answers -32602 for params given as an array (positional)', async () => {
    expect(await send(request('demo.add', 1, [1, 2]))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message:
          'Invalid params: positional params (an array) are not supported; params must be an object of named parameters',
        data: { kind: 'invalid_params', param: 'params' },
      },
    });
  });

  it('treats absent params as an empty object', async () => {
    expect(await send({ jsonrpc: '2.0', id: 1, method: 'demo.ping' })).toMatchObject({ result: { pong: true } });
    expect(await send(request('demo.ping', 1, { unexpected: true }))).toMatchObject({ error: { code: -32602 } });
  });

  it('answers -32700 with id null for invalid JSON', async () => {
    const { ctx } = context();
    for (const text of ['{', '{"jsonrpc":"2.0",', 'not json', '']) {
      expect(await dispatcher.dispatchText(text, ctx)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
    }
  });

  it('answers -32600 for an invalid envelope, with the id when it is readable', async () => {
    expect(await send({ id: 1, method: 'demo.ping' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' },
    });
    expect(await send({ jsonrpc: '1.0', id: 1, method: 'demo.ping' })).toMatchObject({
      id: 1,
      error: { code: -32600 },
    });
    expect(await send({ jsonrpc: '2.0', id: 2 })).toMatchObject({
      id: 2,
      error: { code: -32600, message: 'Invalid Request: method must be a non-empty string' },
    });
    expect(await send({ jsonrpc: '2.0', id: 2, method: 5 })).toMatchObject({ error: { code: -32600 } });
    expect(await send({ jsonrpc: '2.0', id: 2, method: 'demo.ping', params: 'x' })).toMatchObject({
      error: { code: -32600, message: 'Invalid Request: params must be an object' },
    });
    expect(await send({ jsonrpc: '2.0', id: 3, method: 'demo.ping', params: null })).toMatchObject({
      id: 3,
      error: { code: -32600, message: 'Invalid Request: params must be an object' },
    });
  });

  it('answers -32600 with id null for an id that is neither an integer nor a string', async () => {
    for (const id of [{ a: 1 }, [1], true]) {
      expect(await send({ jsonrpc: '2.0', id, method: 'demo.ping' })).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: id must be an integer or a string' },
      });
    }
    expect(await send({ jsonrpc: '2.0', id: 1.5, method: 'demo.ping' })).toMatchObject({ error: { code: -32600 } });
  });

  it('answers -32600 for a message that is not an object', async () => {
    for (const message of [1, 'text', null, true]) {
      expect(await send(message)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: expected an object' },
      });
    }
  });

  it('does not answer a notification, but still runs it', async () => {
    expect(await send({ jsonrpc: '2.0', method: 'demo.record', params: { tag: 'notified' } })).toBeNull();
    expect(calls).toContain('notified');
    expect(await send({ jsonrpc: '2.0', method: 'demo.nope' })).toBeNull();
    expect(await send({ jsonrpc: '2.0', method: 'demo.crash' })).toBeNull();
  });

  it('answers an empty batch with one -32600, not an array', async () => {
    expect(await send([])).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: empty batch' },
    });
  });

  it('answers a batch with an array in request order, leaving out notifications', async () => {
    const response = await send([
      request('demo.add', 'first', { a: 1 }),
      { jsonrpc: '2.0', method: 'demo.record', params: { tag: 'in-batch' } },
      request('demo.nope', 'second'),
    ]);
    expect(response).toEqual([
      { jsonrpc: '2.0', id: 'first', result: 1 },
      { jsonrpc: '2.0', id: 'second', error: { code: -32601, message: 'Method not found: demo.nope' } },
    ]);
  });

  it('answers a one-element batch with a one-element array', async () => {
    expect(await send([request('demo.ping', 9)])).toEqual([{ jsonrpc: '2.0', id: 9, result: { pong: true } }]);
  });

  it('answers invalid members of a batch one by one', async () => {
    expect(await send([1, request('demo.ping', 2)])).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: expected an object' } },
      { jsonrpc: '2.0', id: 2, result: { pong: true } },
    ]);
  });

  it('answers nothing for a batch of only notifications', async () => {
    expect(
      await send([
        { jsonrpc: '2.0', method: 'demo.ping' },
        { jsonrpc: '2.0', method: 'demo.ping' },
      ]),
    ).toBeNull();
  });

  it('answers -32600 for a batch longer than maxBatchSize without running any of it', async () => {
    const before = calls.length;
    const batch = [1, 2, 3, 4].map((n) => request('demo.record', n, { tag: `over-${n}` }));
    expect(await send(batch)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Batch of 4 requests exceeds maximum of 3' },
    });
    expect(calls.length).toBe(before);
    expect(await send(batch.slice(0, 3))).toHaveLength(3);
  });

  it('answers -32603 with the required scope when the caller lacks it, without running the method', async () => {
    expect(await send(request('demo.admin'), context(['rpc']))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: "Insufficient scope: requires 'admin'", data: { kind: 'forbidden' } },
    });
    expect(await send(request('demo.ping'), context(['admin']))).toMatchObject({
      error: { code: -32603, message: "Insufficient scope: requires 'rpc'", data: { kind: 'forbidden' } },
    });
    expect(await send(request('demo.admin'), context(['admin']))).toMatchObject({ result: 'secret stuff' });
  });

  it('checks the scope before the params, so a caller without scope learns nothing about them', async () => {
    expect(await send(request('demo.add', 1, { wrong: true }), context(['admin']))).toMatchObject({
      error: { code: -32603 },
    });
  });

  it('grants rpc methods to a ws token over the WebSocket transport only', async () => {
    expect(await send(request('demo.ping'), context(['ws'], 'ws'))).toMatchObject({ result: { pong: true } });
    expect(await send(request('demo.ping'), context(['ws'], 'http'))).toMatchObject({ error: { code: -32603 } });
  });

  it('never leaks the message of an unknown error, but logs it with the trace id', async () => {
    for (const name of ['demo.crash', 'demo.reject']) {
      const captured = context();
      const response = await send(request(name, 4), captured);
      expect(response).toEqual({
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32603, message: 'Internal error', data: { kind: 'internal' } },
      });
      const log = captured.lines.join('');
      expect(log).toContain('JSON-RPC handler failed');
      expect(log).toContain('trace-1');
      expect(log).toContain(name);
    }
    const captured = context();
    await send(request('demo.crash', 4), captured);
    expect(captured.lines.join('')).toContain('hunter2');
  });

  it('answers a handler failure with -32603 and data {kind, param}, keeping its message', async () => {
    expect(await send(request('demo.missing', 5))).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32603, message: 'Thing not found', data: { kind: 'not_found', param: 'id' } },
    });
  });

  it('answers every handler failure kind with -32603 and its kind, and keeps the standard codes for the rest', async () => {
    const expected: Record<ErrorKind, number> = {
      parse_error: -32700,
      invalid_request: -32600,
      payload_too_large: -32600,
      method_not_found: -32601,
      invalid_params: -32602,
      unauthorized: -32603,
      forbidden: -32603,
      not_found: -32603,
      gone: -32603,
      conflict: -32603,
      duplicate: -32603,
      rate_limited: -32603,
      upstream_failed: -32603,
      unavailable: -32603,
      internal: -32603,
      budget_exceeded: -32603,
    };
    for (const kind of ERROR_KINDS) {
      thrown = new GatewayError(kind, `failed: ${kind}`);
      const response = await send(request('demo.throws', 6));
      const message = kind === 'internal' ? 'Internal error' : `failed: ${kind}`;
      expect(response, kind).toEqual({
        jsonrpc: '2.0',
        id: 6,
        error: { code: expected[kind], message, data: { kind } },
      });
    }
  });

  it('passes retryAfterMs through as data.retryAfterMs, never as the transport rate-limit code -32000', async () => {
    thrown = new GatewayError('unavailable', 'breaker open', { reason: 'circuit_open', retryAfterMs: 12_345 });
    expect(await send(request('demo.throws', 7))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'breaker open', data: { kind: 'unavailable', retryAfterMs: 12_345 } },
    });
    thrown = new GatewayError('rate_limited', 'Too many sub-agent runs in flight (maximum 1)');
    expect(await send(request('demo.throws', 8))).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32603, message: 'Too many sub-agent runs in flight (maximum 1)', data: { kind: 'rate_limited' } },
    });
  });
});
