// The /api/events feed shared by replicas: bus events appended to one capped Redis stream, read back by every replica.
import type { EventBus } from '../../events/index.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { EventFeed, FeedEntry } from '../event-feed.js';
import type { RedisLink } from './connection.js';

export interface RedisEventFeed extends EventFeed {
  /** Stops appending and reading (cuts the blocked read); resolves once the read loop has ended. */
  stop(): Promise<void>;
}

export interface RedisEventFeedOptions {
  events: EventBus;
  /** Events kept for replay (gateway.sseReplayEvents); 0 keeps none. */
  capacity: number;
  /** Entries one blocking read takes at most. */
  readBatch: number;
  /** Entries kept beyond `capacity` for replicas whose reads fall behind. */
  streamSlack: number;
}

/** Redis stream ids: `<ms>-<seq>`, ordered by both parts; the server makes them unique and increasing. */
const STREAM_ID = /^(\d{1,16})-(\d{1,16})$/;

function parseId(id: string): [number, number] | undefined {
  const match = STREAM_ID.exec(id);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

function compareIds(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

const feedEvent = z.strictObject({
  name: z.string().min(1),
  ts: z.number(),
  payload: z.record(z.string(), z.unknown()),
});
const streamEntry = z.tuple([z.string().regex(STREAM_ID), z.tuple([z.literal('e'), z.string()])]);
const xreadReply = z.array(z.tuple([z.string(), z.array(streamEntry)])).nullable();

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
/** After a failed read the loop waits this long (ms) before reading again from the same id: ioredis reconnects meanwhile. */
const READ_RETRY_MS = 500;

/**
 * Every replica appends its own bus events (one XADD each, trimmed to the replay capacity) and follows the
 * stream with a blocking read, so every /api/events subscriber anywhere sees every replica's events in one order,
 * numbered by Redis. The stream is the replay history: Last-Event-ID works whichever replica the client returns to.
 * Only the SSE feed reads remote events; the local bus (recorders, audit, /api/activity) keeps this replica's own.
 */
export function createRedisEventFeed(link: RedisLink, log: Logger, options: RedisEventFeedOptions): RedisEventFeed {
  const streamKey = link.key('events');
  // Replays take only the newest `capacity` entries; the slack is for readers, never replayed.
  const maxLength = String(options.capacity + Math.max(1, options.streamSlack));
  const listeners = new Set<(entry: FeedEntry) => void>();
  let isStopped = false;

  function toEntry(raw: unknown): FeedEntry | undefined {
    const parsed = streamEntry.safeParse(raw);
    if (!parsed.success) return undefined;
    const [id, [, text]] = parsed.data;
    try {
      const event = feedEvent.parse(JSON.parse(text));
      return { id, event };
    } catch (error) {
      log.warn({ err: error, id }, 'dropped a malformed event from the shared feed');
      return undefined;
    }
  }

  const unsubscribeBus = options.events.subscribe(function appendToSharedFeed(event) {
    const text = JSON.stringify({ name: event.name, ts: event.ts, payload: event.payload });
    link.commands
      .xadd(streamKey, 'MAXLEN', maxLength, '*', 'e', text)
      .catch((error: unknown) =>
        log.warn({ err: error, event: event.name }, 'could not append an event to the shared feed'),
      );
  });

  async function newestId(): Promise<string> {
    const newest = await link.commands.xrevrange(streamKey, '+', '-', 'COUNT', 1);
    return toEntry(newest[0])?.id ?? '0-0';
  }

  async function readLoop(): Promise<void> {
    let lastId: string | undefined;
    while (!isStopped) {
      try {
        lastId ??= await newestId();
        const reply = xreadReply.parse(
          await link.reader.xread('COUNT', options.readBatch, 'BLOCK', 0, 'STREAMS', streamKey, lastId),
        );
        for (const [, entries] of reply ?? []) {
          for (const raw of entries) {
            lastId = raw[0];
            const entry = toEntry(raw);
            if (entry !== undefined) for (const listener of listeners) listener(entry);
          }
        }
      } catch (error) {
        if (isStopped) return;
        log.warn({ err: error }, 'reading the shared event feed failed; retrying');
        await pause(READ_RETRY_MS);
      }
    }
  }
  const reading = readLoop();

  /** The held events a client that last saw `lastEventId` missed, and the id from which live events are new to it. */
  async function replayFor(lastEventId: string): Promise<{ missed: FeedEntry[]; floor: [number, number] | undefined }> {
    const held =
      options.capacity === 0 ? [] : await link.commands.xrevrange(streamKey, '+', '-', 'COUNT', options.capacity);
    held.reverse();
    const entries = held.map(toEntry).filter((entry) => entry !== undefined);
    const last = parseId(lastEventId);
    const newest = entries.at(-1);
    // An id past the newest held one (another Redis, a flushed stream, not ours) cannot be placed: all held is sent.
    const isPlaceable =
      last !== undefined && newest !== undefined && compareIds(last, parseId(newest.id) ?? [0, 0]) <= 0;
    const missed = isPlaceable ? entries.filter((entry) => compareIds(parseId(entry.id) ?? [0, 0], last) > 0) : entries;
    const floorEntry = missed.at(-1);
    return { missed, floor: floorEntry === undefined ? (isPlaceable ? last : undefined) : parseId(floorEntry.id) };
  }

  return {
    async follow(lastEventId, listener) {
      // Subscribed before the history is read: live events that arrive meanwhile wait, and any the history already
      // held (the reader may lag the stream) are skipped, so nothing falls between replay and live or comes twice.
      const waiting: FeedEntry[] = [];
      let floor: [number, number] | undefined;
      let isLive = false;
      const deliver = (entry: FeedEntry) => {
        if (floor !== undefined && compareIds(parseId(entry.id) ?? [0, 0], floor) <= 0) return;
        listener(entry);
      };
      const live = (entry: FeedEntry) => (isLive ? deliver(entry) : waiting.push(entry));
      listeners.add(live);
      const unsubscribe = () => listeners.delete(live);
      try {
        if (lastEventId !== undefined) {
          const replay = await replayFor(lastEventId);
          for (const entry of replay.missed) listener(entry);
          floor = replay.floor;
        }
      } catch (error) {
        unsubscribe();
        throw error;
      }
      for (const entry of waiting) deliver(entry);
      isLive = true;
      return unsubscribe;
    },
    async stop() {
      isStopped = true;
      unsubscribeBus();
      listeners.clear();
      link.reader.disconnect();
      await reading;
    },
  };
}
