// A connection's outbound path: replies chunked to the platform's limit, a bounded queue (oldest dropped, recorded as
// failed deliveries), retries with exponential backoff and jitter honoring the platform's wait, in order per chat.
import type { Logger } from 'pino';
import { chunkText } from './chunk.js';
import type { ChannelAdapter, DeliveryFailure, OutboundMessage } from './types.js';

/** The first wait after a retryable failure (ms), doubled per attempt up to OUTBOUND_BACKOFF_MAX_MS. */
export const OUTBOUND_BACKOFF_BASE_MS = 1_000;
/** The longest wait between two attempts (ms), unless the platform names a longer one. */
export const OUTBOUND_BACKOFF_MAX_MS = 60_000;

/** The turn a reply answers: its delivery trace and reactions point at it. */
export interface ReplyOrigin {
  sessionKey: string;
  traceId: string;
  /** When the message answered was received (epoch ms). */
  receivedAt: number;
}

export interface OutboundReply extends OutboundMessage {
  origin?: ReplyOrigin;
}

export interface DeliveryOutcome {
  delivered: boolean;
  /** The platform ids of the chunks sent, in order (also of a partly delivered reply). */
  messageIds: string[];
  /** Why it was not delivered: the platform's refusal, `dropped` (queue overflow) or `stopped`. */
  error?: string;
}

/** What the outbound path tells its connection: each sent chunk, each reply's end. */
export interface OutboundEvents {
  chunkSent(reply: OutboundReply, messageId: string): void;
  replyDone(reply: OutboundReply, outcome: DeliveryOutcome & { errorKind?: string; latencyMs: number }): void;
}

export interface OutboundDeps {
  adapter: Pick<ChannelAdapter, 'send' | 'maxMessageChars'>;
  /** The connection's limits, read per reply so a config change applies to the next one. */
  limits: () => { outboundQueueMax: number; deliveryRetryMs: number };
  events: OutboundEvents;
  now: () => number;
  random?: () => number;
  backoff?: { baseMs: number; maxMs: number };
  log: Logger;
}

export interface Outbound {
  /** Queues a reply; resolves once it is delivered, dropped or given up on (never rejects). */
  enqueue(reply: OutboundReply): Promise<DeliveryOutcome>;
  /** Replies queued or being sent. */
  size(): number;
  /** Gives up every queued reply (recorded as failed) and waits for the ones being sent to end. */
  stop(): Promise<void>;
}

interface Pending {
  reply: OutboundReply;
  enqueuedAt: number;
  abort: AbortController;
  resolve: (outcome: DeliveryOutcome) => void;
  settled: boolean;
}

function isDeliveryFailure(error: unknown): error is DeliveryFailure {
  return error instanceof Error && typeof (error as Partial<DeliveryFailure>).retryable === 'boolean';
}

/** Resolves after `ms` or at once when `signal` aborts; the timer never holds the process open. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export function createOutbound(deps: OutboundDeps): Outbound {
  const { adapter, events, now, log } = deps;
  const random = deps.random ?? Math.random;
  const backoff = deps.backoff ?? { baseMs: OUTBOUND_BACKOFF_BASE_MS, maxMs: OUTBOUND_BACKOFF_MAX_MS };
  /** Oldest first: every reply not yet settled, the ones being sent among them. */
  const queue: Pending[] = [];
  const busyChats = new Set<string>();
  const running = new Set<Promise<void>>();
  let stopped = false;

  function settle(pending: Pending, outcome: DeliveryOutcome, errorKind?: string): void {
    if (pending.settled) return;
    pending.settled = true;
    const index = queue.indexOf(pending);
    if (index !== -1) queue.splice(index, 1);
    const since = pending.reply.origin?.receivedAt ?? pending.enqueuedAt;
    events.replyDone(pending.reply, {
      ...outcome,
      ...(errorKind === undefined ? {} : { errorKind }),
      latencyMs: now() - since,
    });
    pending.resolve(outcome);
  }

  async function deliver(pending: Pending): Promise<void> {
    const { reply, abort } = pending;
    const { deliveryRetryMs } = deps.limits();
    const deadline = pending.enqueuedAt + deliveryRetryMs;
    const messageIds: string[] = [];
    const { origin: _origin, ...message } = reply;
    for (const text of chunkText(reply.text, adapter.maxMessageChars)) {
      for (let attempt = 1; ; attempt += 1) {
        if (abort.signal.aborted) return;
        try {
          const { messageId } = await adapter.send({ ...message, text }, abort.signal);
          messageIds.push(messageId);
          events.chunkSent(reply, messageId);
          break;
        } catch (error) {
          if (abort.signal.aborted) return;
          const failure = isDeliveryFailure(error) ? error : undefined;
          const reason = error instanceof Error ? error.message : String(error);
          const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** (attempt - 1));
          const pause = Math.max(failure?.retryAfterMs ?? 0, Math.round(ceiling / 2 + (ceiling / 2) * random()));
          if (failure?.retryable !== true || now() + pause > deadline) {
            log.warn(
              { chatId: reply.chatId, attempt, retryable: failure?.retryable ?? false },
              'channel reply not delivered',
            );
            settle(
              pending,
              { delivered: false, messageIds, error: reason },
              failure?.retryable === true ? 'retry_exhausted' : 'refused',
            );
            return;
          }
          await wait(pause, abort.signal);
        }
      }
    }
    settle(pending, { delivered: true, messageIds });
  }

  function pump(): void {
    for (const pending of queue) {
      const { chatId } = pending.reply;
      if (busyChats.has(chatId) || pending.settled) continue;
      busyChats.add(chatId);
      const task = deliver(pending)
        .catch((error: unknown) => {
          log.error({ err: error }, 'channel outbound failed unexpectedly');
          settle(pending, { delivered: false, messageIds: [], error: 'internal' }, 'internal');
        })
        .finally(() => {
          busyChats.delete(chatId);
          running.delete(task);
          if (!stopped) pump();
        });
      running.add(task);
    }
  }

  return {
    enqueue(reply) {
      return new Promise<DeliveryOutcome>((resolve) => {
        const pending: Pending = { reply, enqueuedAt: now(), abort: new AbortController(), resolve, settled: false };
        if (stopped) {
          queue.push(pending);
          settle(pending, { delivered: false, messageIds: [], error: 'stopped' }, 'stopped');
          return;
        }
        queue.push(pending);
        const { outboundQueueMax } = deps.limits();
        while (queue.length > outboundQueueMax) {
          const oldest = queue[0];
          if (oldest === undefined) break;
          log.warn(
            { chatId: oldest.reply.chatId, outboundQueueMax },
            'channel outbound queue full: oldest reply dropped',
          );
          oldest.abort.abort();
          settle(oldest, { delivered: false, messageIds: [], error: 'dropped' }, 'queue_overflow');
        }
        pump();
      });
    },
    size: () => queue.length,
    async stop() {
      stopped = true;
      for (const pending of [...queue]) {
        pending.abort.abort();
        settle(pending, { delivered: false, messageIds: [], error: 'stopped' }, 'stopped');
      }
      await Promise.all([...running]);
    },
  };
}
