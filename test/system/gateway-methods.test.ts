// gateway.status and gateway.restart: admin-only process information and the restart hook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { injectRpc } from '../support/http-client.js';

describe('gateway methods', () => {
  let gateway: Harness;
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  let restarts = 0;
  let restarted: () => void = () => undefined;
  const restartCalled = new Promise<void>((resolve) => {
    restarted = resolve;
  });
  beforeAll(async () => {
    gateway = await startGateway({
      listen: false,
      app: {
        now: () => clock,
        requestRestart: async () => {
          restarts += 1;
          restarted();
        },
      },
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('gateway.status reports pid, uptime from the injected clock, Node version, config path and sections', async () => {
    clock += 90_500;
    const { result } = await injectRpc(gateway.app, gateway.tokens.adminOnly, 'gateway.status');
    expect(result).toMatchObject({
      pid: process.pid,
      uptime: 90.5,
      nodeVersion: process.version,
      configPaths: [gateway.paths.configPath],
      sections: [
        'gateway',
        'providers',
        'agents',
        'openai',
        'responses',
        'memory',
        'approvals',
        'scheduler',
        'audio',
        'media',
        'browser',
        'storage',
        'coordination',
        'obs',
        'mcp',
        'orchestrate',
        'skills',
        'learning',
        'channels',
        'terminal',
        'otel',
        'budgets',
        'metrics',
        'runs',
        'audit',
        'a2a',
        'sessions',
      ],
    });
    expect(result).toHaveProperty('memoryUsage.rss');
  });

  it('gateway.restart answers first, then calls the restart hook', async () => {
    const response = await injectRpc(gateway.app, gateway.tokens.admin, 'gateway.restart');
    expect(response.result).toEqual({ restarting: true });
    await restartCalled;
    expect(restarts).toBe(1);
  });
});

describe('gateway.restart without a restart hook', () => {
  it('refuses up front with an error saying why, and the gateway keeps serving', async () => {
    const gateway = await startGateway({ listen: false });
    try {
      const response = await injectRpc(gateway.app, gateway.tokens.admin, 'gateway.restart');
      expect(response.error).toMatchObject({
        code: -32603,
        message: expect.stringMatching(/cannot restart itself/),
        data: { kind: 'unavailable' },
      });
      expect(await injectRpc(gateway.app, gateway.tokens.admin, 'system.ping')).toHaveProperty('result.pong', true);
    } finally {
      await gateway.close();
    }
  });
});
