// Pub/sub channels between replicas on the one subscriber connection; each message names its origin replica.
import type { Logger } from 'pino';
import { z } from 'zod';
import type { PeerChannel } from '../peer-channel.js';
import type { RedisLink } from './connection.js';

export interface PeerChannels {
  /** The channel `name`; messages that fail `schema` (another version's, or not ours) are logged and dropped. */
  channel<T>(name: string, schema: z.ZodType<T>): Promise<PeerChannel<T>>;
}

const envelope = z.strictObject({ origin: z.string(), message: z.unknown() });

export function createPeerChannels(link: RedisLink, originId: string, log: Logger): PeerChannels {
  const handlers = new Map<string, (message: unknown) => void>();

  link.subscriber.on('message', (channel: string, text: string) => {
    const handler = handlers.get(channel);
    if (handler === undefined) return;
    let parsed: z.infer<typeof envelope>;
    try {
      parsed = envelope.parse(JSON.parse(text));
    } catch (error) {
      log.warn({ err: error, channel }, 'dropped a malformed peer message');
      return;
    }
    // Redis delivers a publisher's own messages back to it; the publisher already acted locally.
    if (parsed.origin !== originId) handler(parsed.message);
  });

  return {
    async channel<T>(name: string, schema: z.ZodType<T>): Promise<PeerChannel<T>> {
      const redisChannel = link.key(`peer:${name}`);
      const listeners = new Set<(message: T) => void>();
      handlers.set(redisChannel, (message) => {
        const result = schema.safeParse(message);
        if (!result.success) {
          log.warn({ channel: name }, 'dropped a peer message of the wrong shape');
          return;
        }
        for (const listener of listeners) {
          try {
            listener(result.data);
          } catch (error) {
            log.error({ err: error, channel: name }, 'peer message listener failed');
          }
        }
      });
      // Subscribed before the channel is handed out, so nothing published after startup is missed.
      await link.subscriber.subscribe(redisChannel);
      return {
        async publish(message) {
          await link.commands.publish(redisChannel, JSON.stringify({ origin: originId, message }));
        },
        subscribe(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      };
    },
  };
}
