// Learned procedures through the learning module over real SQLite and the real obs stack (turns driven through its
// hooks, learning-world.ts): admission, promotion after successful uses, demotion after corrected uses from two
// sessions then archive, the per-agent cap, skills.learned.* and skills.reflect, and obs.explain's learning block
// with learned_skill_failing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { candidate, createLearningWorld, EMPTY_FUNNEL, type LearningWorld } from './learning-world.js';

describe('learned procedure lifecycle', () => {
  let world: LearningWorld;
  beforeEach(() => {
    world = createLearningWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  it('admits a candidate once per tool sequence and topic key, and offers it to its agent only', async () => {
    expect(await world.learning.reflectPorts.admit(candidate())).toEqual({ id: 'proc-1', created: true });
    expect(await world.learning.reflectPorts.admit(candidate({ description: 'Tell the time, refreshed' }))).toEqual({
      id: 'proc-1',
      created: false,
    });
    expect(world.learning.source.offered('main')).toEqual([
      {
        id: 'proc-1',
        agentId: 'main',
        name: 'tell-time',
        description: 'Tell the time, refreshed',
        body: candidate().body,
        state: 'candidate',
        allowedTools: ['current_time'],
      },
    ]);
    expect(world.learning.source.offered('other')).toEqual([]);
  });

  it('promotes a candidate after promoteAfter successful uses, with the signal and the learning_lifecycle record', async () => {
    const { id } = await world.learning.reflectPorts.admit(candidate());
    await world.turn('s1', 'What time is it in Rome?', { tools: [true], procedureId: id });
    await world.turn('s2', 'What time is it in Oslo?', { tools: [true], procedureId: id });
    expect((await world.port.procedure(id))?.state).toBe('candidate');
    await world.turn('s3', 'What time is it in Lima?', { tools: [true], procedureId: id });
    expect(await world.port.procedure(id)).toMatchObject({ state: 'active', successUses: 3, failureUses: 0 });
    expect(world.learning.source.offered('main').map((offered) => offered.state)).toEqual(['active']);
    expect(await world.signals('learning.skill_promoted')).toEqual([
      { agentId: 'main', count: 1, timestamp: world.stack.clock.now },
    ]);
    expect((await world.explain('s3')).learning).toEqual({
      outcomeResolved: true,
      outcome: 'success',
      sources: ['tool'],
      skillsUsed: 1,
      skillFailures: 0,
      synthesisAbstained: false,
      skillsPromoted: 1,
      skillsDemoted: 0,
      failuresAttributed: 0,
    });
  });

  it('demotes an active procedure after corrected uses from two sessions, then archives it after two more', async () => {
    const { id } = await world.learning.reflectPorts.admit(candidate());
    for (const session of ['p1', 'p2', 'p3'])
      await world.turn(session, 'Time in Rome?', { tools: [true], procedureId: id });
    expect((await world.port.procedure(id))?.state).toBe('active');

    // Two corrected uses in one session are one session: not enough.
    await world.turn('c1', 'Time in Paris?', { tools: [true], procedureId: id });
    await world.turn('c1', "No, that's wrong");
    await world.turn('c1', 'Time in Paris again?', { tools: [true], procedureId: id });
    await world.turn('c1', 'Wrong again');
    expect((await world.port.procedure(id))?.state).toBe('active');
    await world.turn('c2', 'Time in Bern?', { tools: [true], procedureId: id });
    await world.turn('c2', 'That is incorrect');
    expect(await world.port.procedure(id)).toMatchObject({ state: 'stale', successUses: 3, failureUses: 3 });
    expect(world.learning.source.offered('main').map((offered) => offered.state)).toEqual(['stale']);
    expect(await world.signals('learning.skill_demoted')).toEqual([
      { agentId: 'main', count: 1, timestamp: world.stack.clock.now },
    ]);

    const c2 = await world.explain('c2');
    expect(c2.learning).toEqual({
      outcomeResolved: true,
      outcome: 'corrected',
      sources: ['tool', 'correction'],
      skillsUsed: 2,
      skillFailures: 1,
      synthesisAbstained: false,
      skillsPromoted: 0,
      skillsDemoted: 1,
      failuresAttributed: 0,
    });
    expect(c2.likelyRootCause.code).toBe('learned_skill_failing');

    await world.turn('c3', 'Time in Kyiv?', { tools: [true], procedureId: id });
    await world.turn('c3', 'no');
    expect((await world.port.procedure(id))?.state).toBe('stale');
    await world.turn('c4', 'Time in Baku?', { tools: [false], procedureId: id });
    expect((await world.port.procedure(id))?.state).toBe('archived');
    expect(world.learning.source.offered('main')).toEqual([]);

    const shown = (await world.method('skills.learned.get')({ id })) as { state: string; uses: { outcome: string }[] };
    expect(shown.state).toBe('archived');
    expect(shown.uses.map((use) => use.outcome)).toEqual([
      'failure',
      'corrected',
      'corrected',
      'corrected',
      'corrected',
      'success',
      'success',
      'success',
    ]);
  });

  it('keeps at most maxProceduresPerAgent, archiving the lowest-proof candidates first', async () => {
    const proven = await world.learning.reflectPorts.admit(candidate({ topicKey: 'proven', cardinality: 2 }));
    await world.turn('q1', 'Time?', { tools: [true], procedureId: proven.id });
    await world.learning.reflectPorts.admit(candidate({ topicKey: 'big', cardinality: 9 }));
    await world.learning.reflectPorts.admit(candidate({ topicKey: 'small', cardinality: 2 }));
    await world.learning.reflectPorts.admit(candidate({ topicKey: 'newest', cardinality: 5 }));
    const listed = (await world.method('skills.learned.list')({ agentId: 'main' })) as {
      procedures: { id: string; state: string; successUses: number }[];
    };
    expect(listed.procedures.map((procedure) => procedure.state)).toEqual([
      'candidate',
      'candidate',
      'archived',
      'candidate',
    ]);
    expect(listed.procedures[0]).toMatchObject({ id: proven.id, successUses: 1 });
    expect(world.learning.source.offered('main')).toHaveLength(3);
  });

  it('archives on skills.learned.archive, and answers not_found for an unknown id', async () => {
    const { id } = await world.learning.reflectPorts.admit(candidate());
    expect(await world.method('skills.learned.archive')({ id })).toEqual({ id, state: 'archived' });
    expect(world.learning.source.offered('main')).toEqual([]);
    await expect(world.method('skills.learned.get')({ id: 'missing' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(world.method('skills.learned.archive')({ id: 'missing' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('runs a reflect pass on skills.reflect through the reflect stage wired over its ports; none when learning is off', async () => {
    await world.turn('x1', 'Time in Rome?', { tools: [true] });
    expect(await world.method('skills.reflect')({ agentId: 'main' })).toEqual({
      funnels: [{ ...EMPTY_FUNNEL, agentId: 'main', sourceTrajectoryCount: 1 }],
    });
    expect(world.reflected).toEqual(['main']);
    world.config = { ...world.config, enabled: false };
    await expect(world.method('skills.reflect')({})).rejects.toMatchObject({ kind: 'unavailable' });
    expect(world.reflected).toEqual(['main']);
  });
});
