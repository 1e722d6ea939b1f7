// GET /api/chat/stream tells the client which tool the turn is calling: a `tool` frame as each call starts and ends.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/agents/index.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from '../openai/route-fixture.js';
import { openSse } from './sse-reader.js';

describe('REST chat stream tool frames', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  // The clock answers once the test releases it, so the test sees the call's frames while it is still running.
  let releaseClock: () => void = () => {};
  let clockCalls = 0;
  let clockFinished = 0;
  const clock = defineTool({
    name: 'clock',
    description: 'The time',
    input: z.strictObject({}),
    execute: async () => {
      clockCalls += 1;
      await new Promise<void>((resolve) => {
        releaseClock = resolve;
      });
      clockFinished += 1;
      return { now: 'noon' };
    },
  });
  const broken = defineTool({
    name: 'broken',
    description: 'Always fails',
    input: z.strictObject({}),
    execute: async () => {
      throw new Error('the sensor is unplugged');
    },
  });

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      tools: [clock, broken],
      agents: {
        default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 3, tools: ['clock', 'broken'] },
      },
    });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
  });

  it('sends a started frame while the tool runs and a finished frame with its outcome, before the next text', async () => {
    llm.script(
      {
        toolCalls: [
          { id: 'call_clock', name: 'clock', arguments: {} },
          { id: 'call_broken', name: 'broken', arguments: {} },
        ],
      },
      { deltas: ['It is ', 'noon.'] },
    );
    const stream = await openSse(`${fx.url}/api/chat/stream?message=${encodeURIComponent('time?')}`, {
      authorization: `Bearer ${fx.tokens.rpc}`,
    });
    expect(stream.status).toBe(200);
    const untilStarted = await stream.until((frame) => frame.event === 'tool');
    expect(JSON.parse(untilStarted.at(-1)?.data ?? '{}')).toEqual({
      name: 'clock',
      callId: 'call_clock',
      step: 1,
      status: 'started',
    });
    // The frame came while the call runs: the tool has been called and has not answered yet.
    expect([clockCalls, clockFinished]).toEqual([1, 0]);
    releaseClock();

    const rest = await stream.until((frame) => frame.event === 'done');
    const frames = [...untilStarted, ...rest].filter((frame) => frame.event !== undefined);
    expect(frames.map((frame) => frame.event)).toEqual(['tool', 'tool', 'tool', 'tool', 'token', 'token', 'done']);
    const tools = frames
      .filter((frame) => frame.event === 'tool')
      .map((frame) => JSON.parse(frame.data ?? '{}') as Record<string, unknown>);
    expect(tools.map(({ durationMs: _, ...fields }) => fields)).toEqual([
      { name: 'clock', callId: 'call_clock', step: 1, status: 'started' },
      { name: 'clock', callId: 'call_clock', step: 1, status: 'finished', outcome: 'ok' },
      { name: 'broken', callId: 'call_broken', step: 1, status: 'started' },
      { name: 'broken', callId: 'call_broken', step: 1, status: 'finished', outcome: 'error' },
    ]);
    for (const finished of tools.filter((tool) => tool.status === 'finished'))
      expect(finished.durationMs).toEqual(expect.any(Number));
    // Frame ids keep counting across tool and token frames.
    expect(new Set(frames.map((frame) => frame.id)).size).toBe(frames.length);
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({ response: 'It is noon.', finishReason: 'stop' });
    expect(await stream.next()).toBeUndefined();
  });
});
