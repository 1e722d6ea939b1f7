// GET /api/events numbers its frames and replays what a reconnecting client missed (DESIGN §3 "SSE event ids").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from '../openai/route-fixture.js';
import { openSse, type ReadFrame, type SseReader } from './sse-reader.js';

describe('REST /api/events ids and replay', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({ llmBaseUrl: llm.baseUrl });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });

  // The admin token: the skill events used as markers are the gateway's, which only admins see (event-audience.ts).
  const auth = () => ({ authorization: `Bearer ${fx.tokens.admin}` });
  const emit = (skill: string) => fx.events.emit('skill:executed', { agentId: 'default', skill });
  const skillOf = (frame: ReadFrame) => (JSON.parse(frame.data ?? '{}') as { skill?: string }).skill;

  /** Opens the stream and reads past the retry hint. */
  async function connect(headers: Record<string, string> = auth(), query = ''): Promise<SseReader> {
    const stream = await openSse(`${fx.url}/api/events${query}`, headers);
    expect(stream.status).toBe(200);
    expect(await stream.next()).toMatchObject({ retry: 3000 });
    return stream;
  }

  /** Emits a marker after connecting and returns every event frame up to it: the replay, then the marker. */
  async function replayed(stream: SseReader, marker: string): Promise<ReadFrame[]> {
    emit(marker);
    const frames = await stream.until((frame) => frame.event === 'skill:executed' && skillOf(frame) === marker);
    return frames.filter((frame) => frame.event !== undefined);
  }

  it('gives every event frame an id, each larger than the one before', async () => {
    const stream = await connect();
    for (const skill of ['a', 'b', 'c']) emit(skill);
    const frames = await stream.until((frame) => skillOf(frame) === 'c');
    const ids = frames.filter((frame) => frame.event !== undefined).map((frame) => Number(frame.id));
    expect(ids).toHaveLength(3);
    expect(ids.every((id) => Number.isSafeInteger(id))).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(3);
    stream.close();
  });

  it('replays exactly the events after Last-Event-ID, in order, before live ones, and nothing twice', async () => {
    const first = await connect();
    emit('seen-1');
    emit('seen-2');
    const seen = (await first.until((frame) => skillOf(frame) === 'seen-2')).filter(
      (frame) => frame.event !== undefined,
    );
    const lastId = seen.at(-1)?.id ?? '';
    first.close();
    emit('missed-1');
    emit('missed-2');

    const second = await connect({ ...auth(), 'last-event-id': lastId });
    const frames = await replayed(second, 'live-1');
    expect(frames.map(skillOf)).toEqual(['missed-1', 'missed-2', 'live-1']);
    expect(frames.map((frame) => Number(frame.id))).toEqual([1, 2, 3].map((step) => Number(lastId) + step));
    second.close();
  });

  it('replays nothing to a client that missed nothing, and nothing without Last-Event-ID', async () => {
    const first = await connect();
    emit('latest');
    const lastId = (await first.until((frame) => skillOf(frame) === 'latest')).at(-1)?.id ?? '';
    first.close();
    const upToDate = await connect({ ...auth(), 'last-event-id': lastId });
    expect((await replayed(upToDate, 'after-up-to-date')).map(skillOf)).toEqual(['after-up-to-date']);
    upToDate.close();
    const fresh = await connect();
    expect((await replayed(fresh, 'after-fresh')).map(skillOf)).toEqual(['after-fresh']);
    fresh.close();
  });

  it('takes ?lastEventId= from clients that cannot set headers; the header wins when both are sent', async () => {
    const first = await connect();
    emit('q-1');
    emit('q-2');
    const frames = (await first.until((frame) => skillOf(frame) === 'q-2')).filter(
      (frame) => frame.event !== undefined,
    );
    first.close();
    const [one, two] = frames.map((frame) => frame.id ?? '');
    const byQuery = await connect(auth(), `?lastEventId=${one}`);
    expect((await replayed(byQuery, 'q-live-1')).map(skillOf)).toEqual(['q-2', 'q-live-1']);
    byQuery.close();
    // EventSource keeps the URL it started with and sends the newest id as the header on each reconnect.
    const both = await connect({ ...auth(), 'last-event-id': two ?? '' }, `?lastEventId=${one}`);
    expect((await replayed(both, 'q-live-2')).map(skillOf)).toEqual(['q-live-1', 'q-live-2']);
    both.close();
  });

  it('replays the whole ring for an id it cannot place (too old, from another process, not ours)', async () => {
    const first = await connect();
    const fill = Array.from({ length: 12 }, (_, index) => `fill-${index}`);
    for (const skill of fill) emit(skill);
    const filled = (await first.until((frame) => skillOf(frame) === 'fill-11')).filter(
      (frame) => frame.event !== undefined,
    );
    first.close();
    for (const unknown of ['0', '12', 'abc', '9999999999999999']) {
      const stream = await connect({ ...auth(), 'last-event-id': unknown });
      const frames = await replayed(stream, `after-${unknown}`);
      // The default ring of 1000 still holds every event since the fixture started, the fill ones among them.
      const replayedFill = frames.filter((frame) => skillOf(frame)?.startsWith('fill-') === true);
      expect(
        replayedFill.map((frame) => [skillOf(frame), frame.id]),
        unknown,
      ).toEqual(filled.map((frame) => [skillOf(frame), frame.id]));
      const ids = frames.map((frame) => Number(frame.id));
      expect(ids, unknown).toEqual([...ids].sort((a, b) => a - b));
      stream.close();
    }
  });
});
