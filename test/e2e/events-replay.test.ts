// /api/events across a dropped connection: an EventSource client gets what it missed, from a ring of gateway.sseReplayEvents.
import { EventSource, type FetchLike } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame } from '../http/rest/sse-reader.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

const RING = 3;

/** Resolves once `check` holds; the test's own timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

interface Droppable {
  fetch: FetchLike;
  /** Ends the response body the client is reading, as a network drop would. */
  drop(): void;
  /** The Last-Event-ID header of each request, in order (null when absent). */
  lastEventIds: (string | null)[];
}

function droppableFetch(): Droppable {
  let drop = (): void => undefined;
  const lastEventIds: (string | null)[] = [];
  return {
    lastEventIds,
    drop: () => drop(),
    fetch: async (url, init) => {
      lastEventIds.push(init.headers['Last-Event-ID'] ?? null);
      const response = await fetch(url, init);
      const reader = response.body?.getReader();
      let isDropped = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          drop = () => {
            isDropped = true;
            void reader?.cancel();
            controller.close();
          };
        },
        async pull(controller) {
          const chunk = await reader?.read();
          if (isDropped) return;
          if (chunk === undefined || chunk.done) controller.close();
          else controller.enqueue(chunk.value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    },
  };
}

describe('e2e: /api/events replay on reconnect', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ gateway: { sseReplayEvents: RING } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const emit = (provider: string) => gateway.app.events.emit('provider:degraded', { provider, failures: 1 });

  it('an EventSource that loses its connection receives exactly the events it missed, then live ones', async () => {
    const connection = droppableFetch();
    const source = new EventSource(`${gateway.url}/api/events?token=${gateway.tokens.admin}`, {
      fetch: connection.fetch,
    });
    const received: { provider: string; id: string }[] = [];
    let opens = 0;
    source.addEventListener('open', () => {
      opens += 1;
    });
    source.addEventListener('provider:degraded', (event) => {
      received.push({ provider: (JSON.parse(event.data) as { provider: string }).provider, id: event.lastEventId });
    });
    try {
      await until(() => opens === 1);
      emit('before');
      await until(() => received.length === 1);
      connection.drop();
      emit('missed-1');
      emit('missed-2');
      await until(() => opens === 2);
      emit('live');
      await until(() => received.some((event) => event.provider === 'live'));
    } finally {
      source.close();
    }
    expect(received.map((event) => event.provider)).toEqual(['before', 'missed-1', 'missed-2', 'live']);
    const firstId = Number(received[0]?.id);
    expect(received.map((event) => Number(event.id))).toEqual([firstId, firstId + 1, firstId + 2, firstId + 3]);
    expect(connection.lastEventIds).toEqual([null, String(firstId)]);
  }, 15_000);

  it(`keeps only the newest gateway.sseReplayEvents (${RING}): a client that missed more gets those`, async () => {
    const first = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await first.next();
    emit('seen');
    const lastId = (await first.until((frame) => frame.event === 'provider:degraded')).at(-1)?.id ?? '';
    first.close();
    for (const provider of ['gone-1', 'gone-2', 'kept-1', 'kept-2', 'kept-3']) emit(provider);

    const second = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`, {
      'last-event-id': lastId,
    });
    await second.next();
    emit('live');
    const frames = (await second.until((frame: ReadFrame) => frame.data?.includes('"live"') === true)).filter(
      (frame) => frame.event !== undefined,
    );
    expect(frames.map((frame) => (JSON.parse(frame.data ?? '{}') as { provider: string }).provider)).toEqual([
      'kept-1',
      'kept-2',
      'kept-3',
      'live',
    ]);
    expect(frames.map((frame) => Number(frame.id) - Number(lastId))).toEqual([3, 4, 5, 6]);
    second.close();
  });
});
