// The live /api/events feed: reconnects with backoff and resumes from the last event id, so nothing is missed or doubled.
import { signal } from '@preact/signals';
import { isRecord } from './is-record';
import { readSse, type SseEvent } from './sse';

export interface LiveEvent {
  id: string | undefined;
  name: string;
  data: Record<string, unknown>;
}

/** How many events the feed keeps for display. */
const KEEP_EVENTS = 200;
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

export const liveEvents = signal<LiveEvent[]>([]);
export const liveState = signal<'connecting' | 'live' | 'retrying'>('connecting');

type Listener = (event: LiveEvent) => void;
const listeners = new Set<Listener>();
let controller: AbortController | null = null;
let lastEventId: string | undefined;

function parse(event: SseEvent): LiveEvent {
  let data: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(event.data);
    if (isRecord(value)) data = value;
  } catch {
    data = { text: event.data };
  }
  return { id: event.id, name: event.event, data };
}

async function run(signal: AbortSignal): Promise<void> {
  let attempt = 0;
  while (!signal.aborted) {
    try {
      liveState.value = 'connecting';
      await readSse('/api/events', {
        signal,
        ...(lastEventId === undefined ? {} : { lastEventId }),
        onOpen() {
          attempt = 0;
          liveState.value = 'live';
        },
        onEvent(raw) {
          const event = parse(raw);
          if (event.id !== undefined) lastEventId = event.id;
          liveEvents.value = [event, ...liveEvents.value].slice(0, KEEP_EVENTS);
          for (const listener of listeners) listener(event);
        },
      });
    } catch {
      if (signal.aborted) return;
    }
    liveState.value = 'retrying';
    const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
    attempt += 1;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Starts the feed once (idempotent) and subscribes; the returned function unsubscribes. */
export function subscribeEvents(listener?: Listener): () => void {
  if (controller === null) {
    controller = new AbortController();
    void run(controller.signal);
  }
  if (listener !== undefined) listeners.add(listener);
  return () => {
    if (listener !== undefined) listeners.delete(listener);
  };
}

/** Stops the feed (sign out). */
export function stopEvents(): void {
  controller?.abort();
  controller = null;
  lastEventId = undefined;
  liveEvents.value = [];
}
