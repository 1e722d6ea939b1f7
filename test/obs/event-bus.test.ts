// The event bus: listeners run after emit returns, in order; a throwing listener is logged and the others still run.
import { createEventBus } from '../../src/events/index.js';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/obs/logger.js';
import { delivered } from './support.js';

describe('event bus', () => {
  it('delivers off the emitter stack, in emit order, and keeps the history at once', async () => {
    const bus = createEventBus({ now: () => 7, log: createLogger({ level: 'silent' }) });
    const seen: string[] = [];
    bus.subscribe((event) => seen.push(event.name));
    bus.emit('agent:hot_added', { agentId: 'a', change: 'added' });
    bus.emit('agent:hot_removed', { agentId: 'a', change: 'removed' });
    expect(seen).toEqual([]);
    expect(bus.recent(10).map((event) => [event.name, event.ts])).toEqual([
      ['agent:hot_added', 7],
      ['agent:hot_removed', 7],
    ]);
    await delivered();
    expect(seen).toEqual(['agent:hot_added', 'agent:hot_removed']);
  });

  it('keeps the newest historySize events, oldest first, after more than that many were emitted', () => {
    let at = 0;
    const bus = createEventBus({ now: () => (at += 1), log: createLogger({ level: 'silent' }), historySize: 3 });
    for (let i = 0; i < 7; i += 1) bus.emit('provider:recovered', { provider: `p${i}` });
    expect(bus.recent(10).map((event) => event.ts)).toEqual([5, 6, 7]);
    expect(bus.recent(2).map((event) => event.ts)).toEqual([6, 7]);
    const none = createEventBus({ now: () => 0, log: createLogger({ level: 'silent' }), historySize: 0 });
    none.emit('provider:recovered', { provider: 'p' });
    expect(none.recent(10)).toEqual([]);
  });

  it('a throwing listener neither reaches the emitter nor stops the other listeners', async () => {
    const bus = createEventBus({ now: () => 0, log: createLogger({ level: 'silent' }) });
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('listener failed');
    });
    bus.subscribe((event) => seen.push(event.name));
    expect(() => bus.emit('provider:recovered', { provider: 'p' })).not.toThrow();
    await delivered();
    expect(seen).toEqual(['provider:recovered']);
  });
});
