// End to end: a reflect pass reads at most learning.maxSourceTrajectories turns and maxSourceChars characters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procedureReply, QUESTION, startWorld, type World } from './reflect-world.js';

describe('reflect bounds', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ learning: { reflectIntervalMs: 0, maxSourceTrajectories: 3, maxSourceChars: 200 } });
  });
  afterAll(async () => {
    await world?.harness.close();
    await world?.llm.close();
  });

  it('reads at most maxSourceTrajectories turns and maxSourceChars characters per pass', async () => {
    for (const peer of ['b-1', 'b-2', 'b-3', 'b-4']) await world.clockTurn('bounded', 'alice', peer);
    world.llm.script(procedureReply());
    const funnel = await world.reflect('bounded');
    expect(funnel.sourceTrajectoryCount).toBe(3);
    expect(funnel.totalSourceChars).toBe(3 * (QUESTION.length + 'It is noon.'.length));

    const long = `${QUESTION} ${'please '.repeat(20)}`;
    for (const peer of ['c-1', 'c-2', 'c-3']) await world.clockTurn('bounded', 'bob', peer, long);
    const capped = await world.reflect('bounded');
    expect(capped.totalSourceChars).toBeLessThanOrEqual(200);
    expect(capped.sourceTrajectoryCount).toBeLessThan(3);
  });
});
