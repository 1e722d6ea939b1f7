// The memory lifecycle sweeper over the real SQLite memory port and obs stack, with a fake clock: demote, promote, evict, evidence.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLifecycleSweeper, DAY_MS, type LifecycleSweeperDeps } from '../../src/memory/lifecycle.js';
import { createLogger } from '../../src/obs/logger.js';
import type { LifecyclePolicy, MemoryPort, NewMemoryEntry } from '../../src/store/index.js';
import { createSqliteMemoryPort, type SqliteMemoryPort } from '../../src/store/sqlite/index.js';
import { startObs, type ObsStack } from '../obs/support.js';

const log = createLogger({ level: 'silent' });
const POLICY: LifecyclePolicy = { demoteAfterMs: 10 * DAY_MS, evictAfterMs: 30 * DAY_MS, maxDemotedPerAgent: 2 };

describe('memory lifecycle sweeper', () => {
  let stack: ObsStack;
  let memory: SqliteMemoryPort;
  let t0: number;

  afterEach(async () => {
    vi.useRealTimers();
    await stack.close();
  });

  function setup(port?: (memory: SqliteMemoryPort) => LifecycleSweeperDeps['port'], intervalMs = 60_000) {
    stack = startObs();
    t0 = stack.clock.now;
    memory = createSqliteMemoryPort(stack.db, { exactVectorSearch: true });
    return createLifecycleSweeper({
      port: port?.(memory) ?? memory,
      signals: stack.obs.signals,
      policy: () => POLICY,
      intervalMs,
      now: () => stack.clock.now,
      log,
    });
  }
  const at = (days: number) => {
    stack.clock.now = t0 + days * DAY_MS;
    return stack.clock.now;
  };
  const entry = (id: string, createdDaysAgo: number, agentId = 'agent-a'): NewMemoryEntry => ({
    id,
    tenantId: 'default',
    agentId,
    content: `memory ${id}`,
    memoryType: 'fact',
    trustLevel: 'trusted',
    sourceSessionKey: 'default:u:ws',
    createdAt: t0 - createdDaysAgo * DAY_MS,
    metadata: {},
    derivedFrom: [],
  });
  const statusOf = async (id: string) => (await memory.get(id, {}))?.status ?? 'evicted';
  const signalRows = async () => {
    await stack.obs.flush();
    const rows = stack.db
      .prepare(
        "SELECT ts, agent_id AS agentId, severity, data FROM health_signals WHERE kind = 'memory_lifecycle' ORDER BY id",
      )
      .all() as { ts: number; agentId: string; severity: string; data: string }[];
    return rows.map((row) => ({ ...row, data: JSON.parse(row.data) as unknown }));
  };

  it('demotes entries unused past demoteAfterMs, promotes a recalled one, and evicts demoted ones past evictAfterMs', async () => {
    const sweeper = setup();
    await memory.insert(entry('old', 0));
    await memory.insert(entry('recalled', 0));
    await memory.insert(entry('fresh', -9));
    expect(await sweeper.sweepNow()).toEqual([{ agentId: 'agent-a', scanned: 3, promoted: 0, demoted: 0, evicted: 0 }]);

    at(11);
    expect(await sweeper.sweepNow()).toEqual([{ agentId: 'agent-a', scanned: 3, promoted: 0, demoted: 2, evicted: 0 }]);
    expect([await statusOf('old'), await statusOf('recalled'), await statusOf('fresh')]).toEqual([
      'demoted',
      'demoted',
      'active',
    ]);

    await memory.markRecalled(['recalled'], at(12));
    expect(await statusOf('recalled')).toBe('active');
    expect(await sweeper.sweepNow()).toEqual([{ agentId: 'agent-a', scanned: 3, promoted: 1, demoted: 0, evicted: 0 }]);

    at(31);
    expect(await sweeper.sweepNow()).toEqual([{ agentId: 'agent-a', scanned: 3, promoted: 0, demoted: 2, evicted: 1 }]);
    expect([await statusOf('old'), await statusOf('recalled'), await statusOf('fresh')]).toEqual([
      'evicted',
      'demoted',
      'demoted',
    ]);
  });

  it('keeps at most maxDemotedPerAgent demoted entries, evicting the least recently used first, per agent', async () => {
    const sweeper = setup();
    for (let i = 1; i <= 5; i += 1) await memory.insert(entry(`a${i}`, 20 - i));
    await memory.insert(entry('b1', 20, 'agent-b'));
    expect(await sweeper.sweepNow()).toEqual([
      { agentId: 'agent-a', scanned: 5, promoted: 0, demoted: 5, evicted: 3 },
      { agentId: 'agent-b', scanned: 1, promoted: 0, demoted: 1, evicted: 0 },
    ]);
    expect(await Promise.all(['a1', 'a2', 'a3', 'a4', 'a5', 'b1'].map(statusOf))).toEqual([
      'evicted',
      'evicted',
      'evicted',
      'demoted',
      'demoted',
      'demoted',
    ]);
  });

  it('records one memory_lifecycle signal per agent sweep, which obs.fleet.health reports as the memory_lifecycle finding', async () => {
    const sweeper = setup();
    for (let i = 1; i <= 4; i += 1) await memory.insert(entry(`a${i}`, 20 - i));
    await memory.insert(entry('b1', 0, 'agent-b'));
    await sweeper.sweepNow();
    await sweeper.sweepNow();
    expect(await signalRows()).toEqual([
      { ts: t0, agentId: 'agent-a', severity: 'info', data: { scanned: 4, promoted: 0, demoted: 4, evicted: 2 } },
      { ts: t0, agentId: 'agent-b', severity: 'info', data: { scanned: 1, promoted: 0, demoted: 0, evicted: 0 } },
      { ts: t0, agentId: 'agent-a', severity: 'info', data: { scanned: 2, promoted: 0, demoted: 0, evicted: 0 } },
      { ts: t0, agentId: 'agent-b', severity: 'info', data: { scanned: 1, promoted: 0, demoted: 0, evicted: 0 } },
    ]);
    expect((await stack.obs.fleetHealth({})).findings).toContainEqual({
      code: 'memory_lifecycle',
      severity: 'info',
      count: 4,
      detail: '4 lifecycle sweep(s): 2 evicted, 4 demoted.',
      hint: 'Informational: a high eviction count can explain recall misses.',
    });
  });

  it("records the catalogue's learning.memory_demoted, learning.memory_evicted and learning.lifecycle_swept signals per sweep", async () => {
    const sweeper = setup();
    for (let i = 1; i <= 4; i += 1) await memory.insert(entry(`a${i}`, 20 - i));
    await memory.insert(entry('b1', 0, 'agent-b'));
    await sweeper.sweepNow();
    await stack.obs.flush();
    const rows = stack.db
      .prepare("SELECT kind, agent_id AS agentId, data FROM health_signals WHERE kind LIKE 'learning.%' ORDER BY id")
      .all() as { kind: string; agentId: string; data: string }[];
    expect(rows.map((row) => ({ ...row, data: JSON.parse(row.data) as unknown }))).toEqual([
      { kind: 'learning.memory_demoted', agentId: 'agent-a', data: { agentId: 'agent-a', count: 4, timestamp: t0 } },
      { kind: 'learning.memory_evicted', agentId: 'agent-a', data: { agentId: 'agent-a', count: 2, timestamp: t0 } },
      {
        kind: 'learning.lifecycle_swept',
        agentId: 'agent-a',
        data: { agentId: 'agent-a', scanned: 4, promoted: 0, demoted: 4, evicted: 2, timestamp: t0 },
      },
      {
        kind: 'learning.lifecycle_swept',
        agentId: 'agent-b',
        data: { agentId: 'agent-b', scanned: 1, promoted: 0, demoted: 0, evicted: 0, timestamp: t0 },
      },
    ]);
  });

  it('sweeps every intervalMs once started, never two at once, and stop waits for the running sweep', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let release = (): void => {};
    let sweepsStarted = 0;
    const gated = (port: SqliteMemoryPort): Pick<MemoryPort, 'agentsWithEntries' | 'sweep'> => ({
      agentsWithEntries: () => port.agentsWithEntries(),
      async sweep(agentId, policy, now) {
        sweepsStarted += 1;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return port.sweep(agentId, policy, now);
      },
    });
    const sweeper = setup(gated, 60_000);
    await memory.insert(entry('old', 15));
    sweeper.start();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(sweepsStarted).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(sweepsStarted).toBe(1);
    // A sweep longer than the interval: the next one waits for it instead of starting beside it.
    await vi.advanceTimersByTimeAsync(300_000);
    const joined = sweeper.sweepNow();
    expect(sweepsStarted).toBe(1);
    let isStopped = false;
    const stopping = sweeper.stop().then(() => {
      isStopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(isStopped).toBe(false);
    release();
    await stopping;
    expect(await joined).toEqual([{ agentId: 'agent-a', scanned: 1, promoted: 0, demoted: 1, evicted: 0 }]);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(sweepsStarted).toBe(1);
    expect(await sweeper.sweepNow()).toEqual([]);
  });

  it("records the other agents' sweeps when one agent's sweep fails", async () => {
    const failing = (port: SqliteMemoryPort): Pick<MemoryPort, 'agentsWithEntries' | 'sweep'> => ({
      agentsWithEntries: () => port.agentsWithEntries(),
      sweep: async (agentId, policy, now) => {
        if (agentId === 'agent-a') throw new Error('disk says no');
        return port.sweep(agentId, policy, now);
      },
    });
    const sweeper = setup(failing);
    await memory.insert(entry('a1', 15));
    await memory.insert(entry('b1', 15, 'agent-b'));
    expect(await sweeper.sweepNow()).toEqual([{ agentId: 'agent-b', scanned: 1, promoted: 0, demoted: 1, evicted: 0 }]);
    expect((await signalRows()).map((row) => row.agentId)).toEqual(['agent-b']);
  });
});
