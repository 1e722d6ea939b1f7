// Scope rules: empty scopes and '*' grant everything; rpc, admin, ws, api, mcp-client and metrics each grant their part.
import type { Caller } from '../../src/server/types.js';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/config/index.js';
import {
  grantsMcp,
  grantsMethodScope,
  grantsMetrics,
  grantsOpenAi,
  grantsRest,
  hasAllScopes,
} from '../../src/server/index.js';

const caller = (...scopes: Scope[]): Caller => ({ clientId: 'c', scopes });

describe('scope rules', () => {
  it('grants every method over every transport to empty scopes and to *', () => {
    for (const who of [caller(), caller('*')]) {
      expect(hasAllScopes(who)).toBe(true);
      for (const transport of ['ws', 'http'] as const) {
        expect(grantsMethodScope(who, 'rpc', transport)).toBe(true);
        expect(grantsMethodScope(who, 'admin', transport)).toBe(true);
      }
      expect(grantsRest(who)).toBe(true);
      expect(grantsOpenAi(who)).toBe(true);
    }
  });

  it('grants rpc methods, not admin ones, to an rpc token', () => {
    expect(grantsMethodScope(caller('rpc'), 'rpc', 'http')).toBe(true);
    expect(grantsMethodScope(caller('rpc'), 'admin', 'http')).toBe(false);
    expect(grantsMethodScope(caller('rpc'), 'admin', 'ws')).toBe(false);
  });

  it('grants admin methods, not rpc ones, to an admin-only token', () => {
    expect(grantsMethodScope(caller('admin'), 'admin', 'http')).toBe(true);
    expect(grantsMethodScope(caller('admin'), 'rpc', 'http')).toBe(false);
  });

  it('grants rpc methods to a ws token over the WebSocket only', () => {
    expect(grantsMethodScope(caller('ws'), 'rpc', 'ws')).toBe(true);
    expect(grantsMethodScope(caller('ws'), 'rpc', 'http')).toBe(false);
    expect(grantsMethodScope(caller('ws'), 'admin', 'ws')).toBe(false);
    expect(grantsRest(caller('ws'))).toBe(false);
  });

  it('grants the /v1 routes to rpc and api tokens, and REST only to rpc', () => {
    expect(grantsOpenAi(caller('api'))).toBe(true);
    expect(grantsOpenAi(caller('rpc'))).toBe(true);
    expect(grantsRest(caller('api'))).toBe(false);
    expect(grantsRest(caller('rpc'))).toBe(true);
  });

  it('refuses an mcp-client token on REST, /v1 and every method', () => {
    const mcp = caller('mcp-client');
    expect(grantsRest(mcp)).toBe(false);
    expect(grantsOpenAi(mcp)).toBe(false);
    expect(grantsMethodScope(mcp, 'rpc', 'ws')).toBe(false);
    expect(grantsMethodScope(mcp, 'rpc', 'http')).toBe(false);
  });

  it('grants /mcp to mcp-client, rpc, * and empty scopes, and refuses api, admin and ws tokens', () => {
    for (const who of [caller('mcp-client'), caller('rpc'), caller('*'), caller(), caller('api', 'mcp-client')])
      expect(grantsMcp(who), who.scopes.join()).toBe(true);
    for (const who of [caller('api'), caller('admin'), caller('ws'), caller('api', 'admin', 'ws')])
      expect(grantsMcp(who), who.scopes.join()).toBe(false);
  });

  it('grants /metrics beyond loopback to metrics, admin, * and empty scopes, and refuses rpc, api, ws and mcp-client', () => {
    for (const who of [caller('metrics'), caller('admin'), caller('*'), caller(), caller('rpc', 'metrics')])
      expect(grantsMetrics(who), who.scopes.join()).toBe(true);
    for (const who of [caller('rpc'), caller('api'), caller('ws'), caller('mcp-client'), caller('rpc', 'api', 'ws')])
      expect(grantsMetrics(who), who.scopes.join()).toBe(false);
  });

  it('gives a metrics token nothing but /metrics', () => {
    const metrics = caller('metrics');
    expect(grantsRest(metrics)).toBe(false);
    expect(grantsOpenAi(metrics)).toBe(false);
    expect(grantsMcp(metrics)).toBe(false);
    for (const transport of ['ws', 'http'] as const)
      for (const scope of ['rpc', 'admin'] as const) expect(grantsMethodScope(metrics, scope, transport)).toBe(false);
  });
});
