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
