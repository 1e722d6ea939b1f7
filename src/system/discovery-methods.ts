// system.* and rpc.* methods: liveness and the OpenRPC description of every registered method.
import type { MethodRegistry } from '../rpc/types.js';
import { buildOpenRpcDocument, defineMethod, noParams } from '../rpc/index.js';

export interface SystemMethodsDeps {
  now: () => number;
  version: string;
  /** The finished registry; rpc.discover is itself one of its entries, so it is read on call. */
  registry: () => MethodRegistry;
}

export function systemMethods({ now, version, registry }: SystemMethodsDeps) {
  return [
    defineMethod({
      name: 'system.ping',
      scope: 'rpc',
      summary: 'Liveness check: { pong: true, ts } with the server time in epoch milliseconds.',
      params: noParams,
      handler: () => ({ pong: true, ts: now() }),
    }),
    defineMethod({
      name: 'rpc.discover',
      scope: 'rpc',
      summary: 'OpenRPC document listing every method with its scope and params.',
      params: noParams,
      handler: () => buildOpenRpcDocument(registry(), version),
    }),
  ];
}
