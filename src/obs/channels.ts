// Channel activity (spec ChannelActivity): live counters from message:received/sent, persisted in batches, history fills older channels.
import type { SqliteDatabase } from '../store/index.js';
import type { BatchWriter } from './batch-writer.js';
import type { EventBus } from './event-bus.js';
import type { EventMap } from './event-map.js';

export interface ChannelActivity {
  channelId: string;
  channelType: string;
  lastActiveAt: number;
  messagesSent: number;
  messagesReceived: number;
}

/** Spec Limits: obs.channels.stale thresholdMs default 300000 (5 minutes). */
export const STALE_THRESHOLD_MS = 300_000;

export interface ChannelActivityTracker {
  /** Counts one message on a channel. */
  touch(channel: { channelId: string; channelType: string }, direction: 'sent' | 'received', ts?: number): void;
  /** Live entries win over stored ones; newest activity first. */
  all(): ChannelActivity[];
  get(channelId: string): ChannelActivity | null;
  /** Channels idle for longer than thresholdMs, longest idle first. */
  stale(thresholdMs?: number): ChannelActivity[];
  /** Deletes every stored and live entry; returns the stored rows deleted. */
  reset(): number;
  close(): void;
}

export interface ChannelActivityDeps {
  db: SqliteDatabase;
  writer: BatchWriter;
  now: () => number;
  events?: EventBus;
}

interface ChannelRow {
  channel_id: string;
  channel_type: string;
  last_active_at: number;
  messages_sent: number;
  messages_received: number;
}

const toActivity = (row: ChannelRow): ChannelActivity => ({
  channelId: row.channel_id, channelType: row.channel_type, lastActiveAt: row.last_active_at, messagesSent: row.messages_sent, messagesReceived: row.messages_received,
});

/**
 * The channel of a message event: explicit channelId/channelType in the payload (channel adapters), else the
 * channel part of the session key (`tenant:user:channel[:peer]`), which then serves as both id and type.
 */
export function channelOfEvent(payload: EventMap['message:received' | 'message:sent']): { channelId: string; channelType: string } | undefined {
  const { channelId, channelType, sessionKey } = payload;
  const fromKey = sessionKey.split(':')[2];
  const id = typeof channelId === 'string' && channelId.length > 0 ? channelId : fromKey;
  if (id === undefined || id.length === 0) return undefined;
  const type = typeof channelType === 'string' && channelType.length > 0 ? channelType : fromKey ?? id;
  return { channelId: id.slice(0, 256), channelType: type.slice(0, 64) };
}

const newestFirst = (a: ChannelActivity, b: ChannelActivity) => b.lastActiveAt - a.lastActiveAt || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0);

export function createChannelActivityTracker({ db, writer, now, events }: ChannelActivityDeps): ChannelActivityTracker {
  const upsert = db.prepare(
    `INSERT INTO channel_activity (channel_id, channel_type, last_active_at, messages_sent, messages_received) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (channel_id) DO UPDATE SET channel_type = excluded.channel_type, last_active_at = excluded.last_active_at,
       messages_sent = excluded.messages_sent, messages_received = excluded.messages_received`,
  );
  const byId = db.prepare<[string], ChannelRow>('SELECT * FROM channel_activity WHERE channel_id = ?');
  const allRows = db.prepare<[], ChannelRow>('SELECT * FROM channel_activity');
  const deleteAll = db.prepare('DELETE FROM channel_activity');
  const live = new Map<string, ChannelActivity>();
  // Channel ids come from clients' session keys, so the live set is bounded; an evicted channel reloads its
  // stored counters on its next message.
  const MAX_LIVE_CHANNELS = 10_000;

  function touch(channel: { channelId: string; channelType: string }, direction: 'sent' | 'received', ts = now()): void {
    let entry = live.get(channel.channelId);
    if (entry === undefined) {
      // A channel seen before the restart continues its stored counters.
      writer.flush();
      const stored = byId.get(channel.channelId);
      entry = stored === undefined ? { ...channel, lastActiveAt: ts, messagesSent: 0, messagesReceived: 0 } : toActivity(stored);
      if (live.size >= MAX_LIVE_CHANNELS) {
        const oldest = live.keys().next();
        if (oldest.done !== true) live.delete(oldest.value);
      }
      live.set(channel.channelId, entry);
    }
    entry.channelType = channel.channelType;
    entry.lastActiveAt = Math.max(entry.lastActiveAt, ts);
    if (direction === 'sent') entry.messagesSent += 1;
    else entry.messagesReceived += 1;
    const snapshot = { ...entry };
    writer.enqueue(() => upsert.run(snapshot.channelId, snapshot.channelType, snapshot.lastActiveAt, snapshot.messagesSent, snapshot.messagesReceived));
  }

  const unsubscribe = events?.subscribe((event) => {
    if (event.name !== 'message:received' && event.name !== 'message:sent') return;
    const channel = channelOfEvent(event.payload);
    if (channel !== undefined) touch(channel, event.name === 'message:sent' ? 'sent' : 'received', event.ts);
  });

  function all(): ChannelActivity[] {
    writer.flush();
    const merged = new Map(allRows.all().map((row) => [row.channel_id, toActivity(row)]));
    for (const [id, entry] of live) merged.set(id, { ...entry });
    return [...merged.values()].sort(newestFirst);
  }

  return {
    touch,
    all,
    get(channelId) {
      const entry = live.get(channelId);
      if (entry !== undefined) return { ...entry };
      writer.flush();
      const stored = byId.get(channelId);
      return stored === undefined ? null : toActivity(stored);
    },
    stale(thresholdMs = STALE_THRESHOLD_MS) {
      const cutoff = now() - thresholdMs;
      return all().filter((entry) => entry.lastActiveAt < cutoff).sort((a, b) => -newestFirst(a, b));
    },
    reset() {
      writer.flush();
      live.clear();
      return deleteAll.run().changes;
    },
    close() {
      unsubscribe?.();
    },
  };
}
