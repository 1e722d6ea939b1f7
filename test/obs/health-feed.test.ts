// Health signals from operation: breaker trips and auth cooldowns off the bus, restart orphans, the boot posture row.
import { afterEach, describe, expect, it } from 'vitest';
import { recordBootPosture, recordRunsOrphaned } from '../../src/obs/health-feed.js';
import { delivered, startObs, type ObsStack } from './support.js';

describe('obs health feed', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  const rows = async (current: ObsStack) => {
    await current.obs.flush();
    return current.db.prepare('SELECT ts, kind, severity, data FROM health_signals ORDER BY id').all() as {
      ts: number;
      kind: string;
      severity: string;
      data: string;
    }[];
  };

  it('records a warning health signal per breaker that opens and per auth cooldown, coded per provider', async () => {
    stack = startObs();
    stack.events.emit('provider:degraded', { provider: 'local', failures: 3 });
    stack.events.emit('model:auth_cooldown', { provider: 'cloud', cooldownMs: 60_000 });
    stack.events.emit('provider:recovered', { provider: 'local' });
    await delivered();
    expect(await rows(stack)).toEqual([
      {
        ts: stack.clock.now,
        kind: 'health',
        severity: 'warning',
        data: JSON.stringify({ code: 'provider_breaker_opened:local', failures: 3, provider: 'local' }),
      },
      {
        ts: stack.clock.now,
        kind: 'health',
        severity: 'warning',
        data: JSON.stringify({ code: 'provider_auth_cooldown:cloud', provider: 'cloud' }),
      },
    ]);
  });

  it('makes three trips of one provider a recurring signal in the fleet report, but not one trip each of three', async () => {
    stack = startObs();
    for (const provider of ['a', 'b', 'c']) stack.events.emit('provider:degraded', { provider, failures: 3 });
    await delivered();
    expect((await stack.obs.fleetHealth({})).findings.map((finding) => finding.code)).not.toContain(
      'fleet_recurring_health_signal',
    );
    for (let trip = 0; trip < 2; trip += 1) stack.events.emit('provider:degraded', { provider: 'a', failures: 3 });
    await delivered();
    expect((await stack.obs.fleetHealth({})).findings).toContainEqual(
      expect.objectContaining({
        code: 'fleet_recurring_health_signal',
        count: 3,
        detail: expect.stringContaining('provider_breaker_opened:a'),
      }),
    );
  });

  it('records one orphan signal per restart that found unfinished runs', async () => {
    stack = startObs();
    recordRunsOrphaned(stack.obs.signals, 0);
    recordRunsOrphaned(stack.obs.signals, 2);
    expect((await rows(stack)).map((row) => [row.severity, row.data])).toEqual([
      ['warning', JSON.stringify({ code: 'runs_orphaned_on_restart', count: 2 })],
    ]);
  });

  it('records a boot posture row every boot, listing models served below their configured window first', async () => {
    stack = startObs();
    const fits = { provider: 'local', model: 'a', configuredWindowTokens: 8192, servedWindowTokens: 8192 };
    const unknown = {
      provider: 'cloud',
      model: 'b',
      configuredWindowTokens: 200_000,
      servedWindowTokens: 'unknown' as const,
    };
    const below = { provider: 'vllm', model: 'c', configuredWindowTokens: 131_072, servedWindowTokens: 4096 };
    recordBootPosture(stack.obs.signals, { bootId: 'boot-1', entries: [fits, unknown, below] });
    recordBootPosture(stack.obs.signals, { bootId: 'boot-2', entries: [] });
    const [first, second] = await rows(stack);
    expect(first).toMatchObject({ kind: 'config_posture', severity: 'warning' });
    expect(JSON.parse(first?.data ?? '{}')).toEqual({ bootId: 'boot-1', providers: [below, fits, unknown] });
    expect(second).toMatchObject({
      kind: 'config_posture',
      severity: 'info',
      data: JSON.stringify({ bootId: 'boot-2', providers: [] }),
    });
  });
});
