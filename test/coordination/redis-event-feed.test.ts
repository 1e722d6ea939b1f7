// The shared /api/events feed: every replica's bus events reach followers on any replica, in one order, and a
// Last-Event-ID from one replica replays on another.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventFeed, FeedEntry } from '../../src/coordination/index.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startReplica, type Replica } from './redis-fixture.js';

const feedOf = (replica: Replica): EventFeed => {
  const feed = replica.coordination.eventFeed;
  if (feed === undefined) throw new Error('redis coordination has an event feed');
  return feed;
};

async function follow(replica: Replica, lastEventId?: string): Promise<{ entries: FeedEntry[]; stop: () => void }> {
  const entries: FeedEntry[] = [];
  const stop = await feedOf(replica).follow(lastEventId, (entry) => entries.push(entry));
  return { entries, stop };
}

const names = (entries: readonly FeedEntry[]) => entries.map((entry) => Reflect.get(entry.event.payload, 'name'));
const emit = (replica: Replica, name: string) => replica.events.emit('secret:accessed', { name });

describe('redis event feed', () => {
  let redis: RedisServer;
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await Promise.all([
      startReplica(redis.url, { replayEvents: 5 }),
      startReplica(redis.url, { replayEvents: 5 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.coordination.close(), b.coordination.close()]);
    await redis.stop();
  });

  it("gives a follower on one replica the other's events, with the payload and time, in one order for everyone", async () => {
    const onA = await follow(a);
    const onB = await follow(b);
    emit(a, 'one');
    await vi.waitFor(() => expect(names(onB.entries)).toEqual(['one']));
    emit(b, 'two');
    emit(a, 'three');
    await vi.waitFor(() => expect(onB.entries).toHaveLength(3));
    await vi.waitFor(() => expect(onA.entries).toHaveLength(3));
    expect(onA.entries).toEqual(onB.entries);
    expect(onB.entries[0]?.event).toMatchObject({ name: 'secret:accessed', payload: { name: 'one' } });
    expect(typeof onB.entries[0]?.event.ts).toBe('number');
    expect(new Set(onB.entries.map((entry) => entry.id)).size).toBe(3);
    onA.stop();
    onB.stop();
  });

  it('replays on B what a client last seen on A missed, then goes on live, each event once', async () => {
    const all = await follow(a);
    emit(a, 'r1');
    await vi.waitFor(() => expect(names(all.entries)).toEqual(['r1']));
    const lastSeen = all.entries[0]?.id;
    emit(a, 'r2');
    emit(b, 'r3');
    await vi.waitFor(() => expect(all.entries).toHaveLength(3));

    const resumed = await follow(b, lastSeen);
    // Exactly what a client that never left saw after that id, in the same order and with the same ids.
    expect(resumed.entries).toEqual(all.entries.slice(1));
    expect(names(resumed.entries).sort()).toEqual(['r2', 'r3']);
    emit(a, 'r4');
    await vi.waitFor(() => expect(resumed.entries).toHaveLength(3));
    expect(names(resumed.entries)[2]).toBe('r4');
    all.stop();
    resumed.stop();
  });

  it('keeps only the replay capacity, and replays all it holds for an id it cannot place', async () => {
    const watcher = await follow(a);
    for (const name of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']) emit(b, name);
    await vi.waitFor(() => expect(watcher.entries).toHaveLength(7));
    watcher.stop();
    for (const lastEventId of ['not-an-id', '99999999999999-0']) {
      const resumed = await follow(a, lastEventId);
      expect(names(resumed.entries)).toEqual(['c3', 'c4', 'c5', 'c6', 'c7']);
      resumed.stop();
    }
    const fromOldest = await follow(b, '0-1');
    expect(names(fromOldest.entries)).toEqual(['c3', 'c4', 'c5', 'c6', 'c7']);
    fromOldest.stop();
  });

  it('sends nothing old to a follower without a Last-Event-ID', async () => {
    const fresh = await follow(b);
    emit(a, 'new');
    await vi.waitFor(() => expect(names(fresh.entries)).toEqual(['new']));
    fresh.stop();
  });
});
