// docs/events.md is generated from the event map and never stale, and every event the map declares has a producer.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { collectEvents, EVENTS_REFERENCE_PATH, generateEventsReference } from '../../scripts/events-reference.js';

describe('events reference', () => {
  it('docs/events.md matches the event map (run `npm run docs:events` after changing an event)', async () => {
    const checkedIn = await readFile(EVENTS_REFERENCE_PATH, 'utf8').catch(() => '');
    expect(checkedIn === (await generateEventsReference()), 'docs/events.md is stale: run `npm run docs:events`').toBe(
      true,
    );
  });

  it('every declared event is emitted somewhere in src/', async () => {
    const silent = (await collectEvents()).filter((event) => event.producers.length === 0).map((event) => event.name);
    expect(silent).toEqual([]);
  });

  it('finds the emitters of a known event, including both names of a conditional emit', async () => {
    const events = await collectEvents();
    const byName = new Map(events.map((event) => [event.name, event.producers]));
    expect(byName.get('agent:hot_added')).toContain('src/agents/agent-registry.ts');
    expect(byName.get('agent:hot_removed')).toContain('src/agents/agent-registry.ts');
    expect(events.find((event) => event.name === 'session:created')?.note).toMatch(/once per session/);
  });
});
