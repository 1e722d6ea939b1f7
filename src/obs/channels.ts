// Channel activity (spec ChannelActivity): counted from message:received/sent, added up by the obs port in batches.
import type { EventBus, EventMap } from '../events/index.js';
import type { ObsPort, ObsWrite } from '../store/index.js';
import type { BatchQueue } from './batch-queue.js';

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
  /** Newest activity first. */
  all(): Promise<ChannelActivity[]>;
  get(channelId: string): Promise<ChannelActivity | null>;
  /** Channels idle for longer than thresholdMs, longest idle first. */
  stale(thresholdMs?: number): Promise<ChannelActivity[]>;
  /** Deletes every stored entry; returns how many. */
  reset(): Promise<number>;
  close(): void;
}

export interface ChannelActivityDeps {
  port: ObsPort;
  /** The obs write queue shared with delivery traces, diagnostics and health signals. */
  queue: BatchQueue<ObsWrite>;
  now: () => number;
  events?: EventBus;
}

/** The channel of a message event: its channelId, typed by channelType when the emitter knows one. */
export function channelOfEvent(
  payload: EventMap['message:received' | 'message:sent'],
): { channelId: string; channelType: string } | undefined {
  const { channelId, channelType } = payload;
  if (channelId.length === 0) return undefined;
  const type = channelType !== undefined && channelType.length > 0 ? channelType : channelId;
  return { channelId: channelId.slice(0, 256), channelType: type.slice(0, 64) };
}

const newestFirst = (a: ChannelActivity, b: ChannelActivity) =>
  b.lastActiveAt - a.lastActiveAt || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0);

export function createChannelActivityTracker({
  port,
  queue,
  now,
  events,
}: ChannelActivityDeps): ChannelActivityTracker {
  function touch(
    channel: { channelId: string; channelType: string },
    direction: 'sent' | 'received',
    ts = now(),
  ): void {
    queue.enqueue({
      type: 'channel',
      touch: { channelId: channel.channelId, channelType: channel.channelType, ts, direction },
    });
  }

  const unsubscribe = events?.subscribe((event) => {
    if (event.name !== 'message:received' && event.name !== 'message:sent') return;
    const channel = channelOfEvent(event.payload);
    if (channel !== undefined) touch(channel, event.name === 'message:sent' ? 'sent' : 'received', event.ts);
  });

  async function all(): Promise<ChannelActivity[]> {
    await queue.flush();
    return (await port.channels()).sort(newestFirst);
  }

  return {
    touch,
    all,
    async get(channelId) {
      await queue.flush();
      return (await port.channel(channelId)) ?? null;
    },
    async stale(thresholdMs = STALE_THRESHOLD_MS) {
      const cutoff = now() - thresholdMs;
      return (await all()).filter((entry) => entry.lastActiveAt < cutoff).sort((a, b) => -newestFirst(a, b));
    },
    async reset() {
      await queue.flush();
      return port.reset('channels');
    },
    close() {
      unsubscribe?.();
    },
  };
}
