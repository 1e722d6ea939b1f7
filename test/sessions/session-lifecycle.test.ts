// The session lifecycle sweep on a real SQLite store with a fake clock: idle sessions expire and are announced once,
// expired transcripts are deleted after sessions.expiredRetentionDays and not a day before, and 0 turns each step off.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventBus, type BusEvent } from '../../src/events/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createSessionLifecycle, type SessionLifecycleSettings } from '../../src/sessions/session-lifecycle.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { StorePorts } from '../../src/store/index.js';

const T0 = 1_700_000_000_000;
const DAY_MS = 86_400_000;
const log = createLogger({ level: 'silent' });

describe('session lifecycle sweep', () => {
  let store: StorePorts;
  let clock: number;
  let settings: SessionLifecycleSettings;
  let seen: BusEvent[];
  let lifecycle: ReturnType<typeof createSessionLifecycle>;

  beforeEach(async () => {
    store = openSqliteStore({ path: ':memory:' });
    clock = T0;
    settings = { idleTtlMs: 60_000, expiredRetentionDays: 30, sweepIntervalMs: 60_000, archiveAfterMs: 0 };
    seen = [];
    const events = createEventBus({ now: () => clock, log });
    events.subscribe((event) => seen.push(event));
    lifecycle = createSessionLifecycle({
      store: store.sessions,
      events,
      settings: () => settings,
      now: () => clock,
      log,
    });
    await store.sessions.ensure({
      sessionKey: 'default:alice:ws',
      agentId: 'default',
      tenantId: 'default',
      kind: 'dm',
      createdAt: T0,
      metadata: {},
      ownerId: 'alice',
    });
    await store.sessions.append('default:alice:ws', [{ role: 'user', content: 'hello', timestamp: T0 }], T0);
  });
  afterEach(async () => {
    await lifecycle.stop();
    await store.close();
  });

  const expiredEvents = () => seen.filter((event) => event.name === 'session:expired').map((event) => event.payload);

  it('expires an idle session once, then deletes its transcript after the retention days, not before', async () => {
    clock = T0 + 59_999;
    await lifecycle.sweepNow();
    expect(expiredEvents()).toEqual([]);
    clock = T0 + 60_001;
    await lifecycle.sweepNow();
    await lifecycle.sweepNow();
    expect(expiredEvents()).toEqual([{ sessionKey: 'default:alice:ws' }]);
    expect(await store.sessions.get('default:alice:ws')).toMatchObject({ expiredAt: T0 + 60_001 });

    clock = T0 + 60_001 + 30 * DAY_MS - 1;
    await lifecycle.sweepNow();
    expect(await store.sessions.history('default:alice:ws')).toHaveLength(1);
    clock = T0 + 60_001 + 30 * DAY_MS + 1;
    await lifecycle.sweepNow();
    expect(await store.sessions.get('default:alice:ws')).toBeUndefined();
    expect(await store.sessions.history('default:alice:ws')).toEqual([]);
  });

  it('never expires with idleTtlMs 0 and keeps expired transcripts with expiredRetentionDays 0', async () => {
    settings = { ...settings, idleTtlMs: 0 };
    clock = T0 + 365 * DAY_MS;
    await lifecycle.sweepNow();
    expect(expiredEvents()).toEqual([]);
    settings = { ...settings, idleTtlMs: 60_000, expiredRetentionDays: 0 };
    await lifecycle.sweepNow();
    expect(expiredEvents()).toHaveLength(1);
    clock += 3650 * DAY_MS;
    await lifecycle.sweepNow();
    expect(await store.sessions.history('default:alice:ws')).toHaveLength(1);
  });
});
