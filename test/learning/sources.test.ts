// Outcomes through the learning module over real SQLite and the real obs stack (turns driven through its hooks,
// learning-world.ts): trust of each turn, a correction while the background lane runs behind, hand-offs, observe()
// for reactions and pipelines, and the sources the reflect stage reads.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLearningWorld, type LearningWorld } from './learning-world.js';

describe('learning outcomes and sources', () => {
  let world: LearningWorld;
  beforeEach(() => {
    world = createLearningWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  it("marks untrusted the turns of a webhook session (their request came from an outside system), not the turns that read a tool's output", async () => {
    const trusted = await world.turn('t1', 'Time in Rome?', { tools: [true] });
    const sawOutput = await world.turn('t2', 'Fetch the page', { tools: [true], toolName: 'web_fetch' });
    const webhook = await world.turn('t3', 'Incoming order', { clientId: 'system:webhook' });
    const trust = async (traceId: string) => (await world.port.outcome(traceId))?.trusted;
    expect([await trust(trusted), await trust(sawOutput), await trust(webhook)]).toEqual([true, true, false]);
  });

  it('corrects the turn before the correction even when the background lane runs behind the turns', async () => {
    let release = () => undefined as void;
    world.gate = new Promise((resolve) => {
      release = resolve;
    });
    const first = await world.turn('b1', 'Time in Rome?', { tools: [true], isAwaited: false });
    const correction = await world.turn('b1', "No, that's wrong", { isAwaited: false });
    release();
    await world.learning.settled();
    expect((await world.port.outcome(first))?.outcome).toBe('corrected');
    expect((await world.port.outcome(correction))?.outcome).toBeNull();
  });

  it('records nothing for a turn handing tool calls to its caller: it is not finished, the next request goes on', async () => {
    const traceId = await world.turn('h1', 'Run the local build', { tools: [true], finish: 'tool_calls' });
    expect(await world.port.outcome(traceId)).toBeUndefined();
    expect((await world.explain('h1')).learning).toBeUndefined();
  });

  it('takes reactions and pipeline results through observe, by session or trace, each a new learning_outcome', async () => {
    const traceId = await world.turn('o1', 'Summarise the report');
    expect((await world.explain('o1')).learning).toMatchObject({ outcomeResolved: false, sources: [] });
    expect(
      await world.learning.observe({ sessionKey: 'default:o1:chat', outcome: 'success', source: 'reaction' }),
    ).toEqual({
      traceId,
      outcome: 'success',
    });
    expect((await world.explain('o1')).learning).toMatchObject({ outcome: 'success', sources: ['reaction'] });
    await world.learning.observe({ traceId, outcome: 'failure', source: 'pipeline' });
    expect((await world.explain('o1')).learning).toMatchObject({
      outcome: 'failure',
      sources: ['pipeline', 'reaction'],
    });
    expect(await world.port.outcome(traceId)).toMatchObject({ outcome: 'failure', sources: ['pipeline', 'reaction'] });
    expect(
      await world.learning.observe({ sessionKey: 'default:nobody:chat', outcome: 'success', source: 'reaction' }),
    ).toBe(undefined);
  });

  it('reads the sources reflect asks for from the transcripts, bounded, and only those after the last pass', async () => {
    for (const session of ['r1', 'r2']) {
      await world.sessions.ensure({
        sessionKey: `default:${session}:chat`,
        agentId: 'main',
        tenantId: 'default',
        kind: 'dm',
        createdAt: 0,
        metadata: {},
        ownerId: 'rpc-client',
      });
    }
    const exchange = async (session: string, question: string, answer: string) => {
      const at = world.stack.clock.now + 1;
      await world.sessions.append(
        `default:${session}:chat`,
        [
          { role: 'user', content: question, timestamp: at },
          { role: 'assistant', content: answer, timestamp: at },
        ],
        at,
      );
      return world.turn(session, question, { tools: [true] });
    };
    const first = await exchange('r1', 'Weather in Berlin?', 'Sunny.');
    const second = await exchange('r2', 'Weather in Bonn today?', 'Rain.');
    const third = await exchange('r1', 'Weather in Berlin tomorrow?', 'Cloudy.');

    const all = await world.learning.reflectPorts.readSources('main', { maxTrajectories: 10, maxChars: 1_000 });
    expect(all.map((source) => [source.traceId, source.userText, source.answerText])).toEqual([
      [third, 'Weather in Berlin tomorrow?', 'Cloudy.'],
      [second, 'Weather in Bonn today?', 'Rain.'],
      [first, 'Weather in Berlin?', 'Sunny.'],
    ]);
    expect(all[0]).toMatchObject({
      sessionKey: 'default:r1:chat',
      senderId: 'r1',
      agentId: 'main',
      outcome: 'success',
      toolSequence: ['current_time'],
      topicKey: 'berlin+tomorrow+weather',
      trusted: true,
    });
    const newest = 'Weather in Berlin tomorrow?Cloudy.'.length;
    expect(
      (await world.learning.reflectPorts.readSources('main', { maxTrajectories: 10, maxChars: newest + 5 })).map(
        (source) => source.traceId,
      ),
    ).toEqual([third]);
    expect(
      (await world.learning.reflectPorts.readSources('main', { maxTrajectories: 2, maxChars: 1_000 })).map(
        (source) => source.traceId,
      ),
    ).toEqual([third, second]);

    await world.learning.reflectPorts.markPassed('main', (await world.port.outcome(second))?.ts ?? 0);
    expect(
      (await world.learning.reflectPorts.readSources('main', { maxTrajectories: 10, maxChars: 1_000 })).map(
        (source) => source.traceId,
      ),
    ).toEqual([third]);
  });
});
