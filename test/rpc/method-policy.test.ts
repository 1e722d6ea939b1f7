// Per-method policy declared beside the method: audit flag (admin by default), params size limit, approval requirement.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/obs/logger.js';
import {
  buildOpenRpcDocument,
  createDispatcher,
  createRegistry,
  defineMethod,
  noParams,
  type DispatchContext,
} from '../../src/rpc/index.js';

type Audited = Parameters<NonNullable<Parameters<typeof createDispatcher>[0]['audit']>>[0];

function context(scopes: DispatchContext['caller']['scopes'] = ['*']): DispatchContext {
  const log = createLogger({ level: 'silent' });
  return {
    caller: { clientId: 'tester', scopes },
    transport: 'http',
    log,
    signal: new AbortController().signal,
    traceId: 'trace-1',
  };
}

const registry = createRegistry([
  defineMethod({ name: 'demo.plain', scope: 'rpc', summary: 'not audited', params: noParams, handler: () => 'ok' }),
  defineMethod({
    name: 'demo.watched',
    scope: 'rpc',
    summary: 'audited rpc method',
    params: noParams,
    policy: { audit: true },
    handler: () => 'ok',
  }),
  defineMethod({
    name: 'demo.admin',
    scope: 'admin',
    summary: 'audited by default',
    params: noParams,
    handler: () => 'ok',
  }),
  defineMethod({
    name: 'demo.quiet',
    scope: 'admin',
    summary: 'admin, audit off',
    params: noParams,
    policy: { audit: false },
    handler: () => 'ok',
  }),
  defineMethod({
    name: 'demo.upload',
    scope: 'rpc',
    summary: 'small payloads only',
    params: z.strictObject({ data: z.string() }),
    policy: { maxParamsBytes: 32, requiresApproval: true },
    handler: ({ data }) => data.length,
  }),
]);

function dispatcherWithAudit() {
  const audited: Audited[] = [];
  const dispatcher = createDispatcher({ registry, maxBatchSize: 10, audit: (call) => audited.push(call) });
  return { audited, dispatcher };
}

const call = (method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id: 1, method, params });

describe('per-method policy', () => {
  it('fills in the defaults at registration: admin methods audited, no size limit, no approval', () => {
    expect(registry.get('demo.plain')?.policy).toEqual({ audit: false, readOnly: false, requiresApproval: false });
    expect(registry.get('demo.admin')?.policy).toEqual({ audit: true, readOnly: false, requiresApproval: false });
    expect(registry.get('demo.quiet')?.policy).toEqual({ audit: false, readOnly: false, requiresApproval: false });
    expect(registry.get('demo.upload')?.policy).toEqual({
      audit: false,
      readOnly: false,
      maxParamsBytes: 32,
      requiresApproval: true,
    });
  });

  it('audits only methods whose policy says so, plus every call refused for scope', async () => {
    const { audited, dispatcher } = dispatcherWithAudit();
    for (const method of ['demo.plain', 'demo.watched', 'demo.admin', 'demo.quiet'])
      await dispatcher.dispatch(call(method), context());
    expect(audited.map((entry) => [entry.method, entry.outcome])).toEqual([
      ['demo.watched', 'ok'],
      ['demo.admin', 'ok'],
    ]);
    await dispatcher.dispatch(call('demo.quiet'), context(['rpc']));
    expect(audited.at(-1)).toMatchObject({ method: 'demo.quiet', outcome: 'denied', errorKind: 'forbidden' });
  });

  it('refuses params over maxParamsBytes with -32602 before validating them, naming the limit', async () => {
    const { dispatcher } = dispatcherWithAudit();
    expect(await dispatcher.dispatch(call('demo.upload', { data: 'short' }), context())).toMatchObject({ result: 5 });
    expect(await dispatcher.dispatch(call('demo.upload', { data: 'x'.repeat(40), extra: 1 }), context())).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid params: params of demo.upload exceed its limit of 32 bytes (policy.maxParamsBytes)',
        data: { kind: 'invalid_params', param: 'params' },
      },
    });
  });

  it('fails at registration on a limit that is not a positive whole number of bytes', () => {
    for (const maxParamsBytes of [0, -1, 1.5, Number.NaN]) {
      const method = defineMethod({
        name: 'demo.bad',
        scope: 'rpc',
        summary: 's',
        params: noParams,
        policy: { maxParamsBytes },
        handler: () => null,
      });
      expect(() => createRegistry([method])).toThrow(
        `JSON-RPC method 'demo.bad' has an invalid policy.maxParamsBytes: ${maxParamsBytes}`,
      );
    }
  });

  it('publishes the policy of each method in rpc.discover', () => {
    const upload = buildOpenRpcDocument(registry, '1.0.0').methods.find((method) => method.name === 'demo.upload');
    expect(upload?.['x-policy']).toEqual({ audit: false, readOnly: false, maxParamsBytes: 32, requiresApproval: true });
  });

  it('reads a read verb as readOnly, and audits readOnly methods only while auditReads says so', async () => {
    const reads = createRegistry([
      defineMethod({ name: 'demo.list', scope: 'admin', summary: 's', params: noParams, handler: () => [] }),
      defineMethod({ name: 'demo.getThing', scope: 'admin', summary: 's', params: noParams, handler: () => 1 }),
      defineMethod({ name: 'demo.listing', scope: 'admin', summary: 's', params: noParams, handler: () => 1 }),
      defineMethod({
        name: 'demo.report',
        scope: 'admin',
        summary: 's',
        params: noParams,
        policy: { readOnly: true },
        handler: () => 1,
      }),
    ]);
    expect(reads.list().map((method) => [method.name, method.policy.readOnly])).toEqual([
      ['demo.getThing', true],
      ['demo.list', true],
      ['demo.listing', false],
      ['demo.report', true],
    ]);
    const audited: Audited[] = [];
    let auditReads = false;
    const dispatcher = createDispatcher({
      registry: reads,
      maxBatchSize: 10,
      audit: (entry) => audited.push(entry),
      auditReads: () => auditReads,
    });
    for (const method of ['demo.list', 'demo.listing', 'demo.report'])
      await dispatcher.dispatch(call(method), context());
    expect(audited.map((entry) => entry.method)).toEqual(['demo.listing']);
    await dispatcher.dispatch(call('demo.list'), context(['rpc']));
    expect(audited.at(-1)).toMatchObject({ method: 'demo.list', outcome: 'denied' });
    auditReads = true;
    await dispatcher.dispatch(call('demo.report'), context());
    expect(audited.at(-1)).toMatchObject({ method: 'demo.report', outcome: 'ok' });
  });
});
