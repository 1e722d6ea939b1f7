// End to end: real turns through a started gateway over the fake LLM server, then skills.reflect: corroborated
// clusters admitted, a lone sender uncorroborated until a later session corroborates it, a small-tier model abstaining
// (and obs.explain saying so), untrusted webhook turns dropped, name and tool rejections, and the reflect signals.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReflectFunnel } from '../../../src/learning/reflect/index.js';
import type { IncidentReport } from '../../../src/obs/explain/index.js';
import { callRpc } from '../../support/http-client.js';
import { procedureReply, procedures, QUESTION, startWorld, WEBHOOK_SECRET, type World } from './reflect-world.js';

describe('reflect over real turns', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await world?.harness.close();
    await world?.llm.close();
  });

  it('admits one candidate from three sessions of two senders doing the same tool sequence', async () => {
    await world.clockTurn('ops', 'alice', 'ops-1');
    await world.clockTurn('ops', 'alice', 'ops-2');
    await world.clockTurn('ops', 'bob', 'ops-3');
    world.llm.script(procedureReply());
    const funnel = await world.reflect('ops');
    expect(funnel).toEqual({
      agentId: 'ops',
      synthesized: 1,
      validated: 1,
      admitted: 1,
      maxClusterCardinality: 3,
      distinctTopicKeys: 1,
      untrustedDrops: 0,
      nameLengthRejections: 0,
      skipped: 0,
      sourceTrajectoryCount: 3,
      totalSourceChars: 3 * (QUESTION.length + 'It is noon.'.length),
      admissionOutcome: 'admitted',
      timestamp: expect.any(Number),
    });
    // The agent's own model wrote it, from the cluster's examples and tool sequence.
    const synthesis = world.llm.chatRequests().at(-1)?.body as { model: string; messages: { content: string }[] };
    expect(synthesis.model).toBe('fake-model');
    const prompt = JSON.stringify(synthesis.messages);
    expect(prompt).toContain('Tool sequence: current_time');
    expect(prompt).toContain(QUESTION);
    expect(await procedures(world, 'ops')).toEqual([
      expect.objectContaining({
        agentId: 'ops',
        name: 'tell-the-office-time',
        state: 'candidate',
        tools: ['current_time'],
        cardinality: 3,
        synthesisAbstained: false,
      }),
    ]);
    // Written by the model: no source session says synthesis abstained.
    const explained = (await world.rpc('obs.explain', {
      sessionKey: 'default:bob:test:ops-3',
    })) as unknown as IncidentReport;
    expect(explained.learning).toMatchObject({ synthesisAbstained: false });
    expect(await world.signals('reflect.funnel')).toContainEqual({ ...funnel, agentIdColumn: 'ops' });
    expect(await world.signals('reflect.admitted')).toContainEqual({
      agentIdColumn: 'ops',
      agentId: 'ops',
      count: 1,
      timestamp: funnel.timestamp,
    });
  });

  it('refuses one sender alone in one session, however often it repeats: uncorroborated, no model call', async () => {
    await world.clockTurn('solo', 'carol', 'solo-1');
    await world.clockTurn('solo', 'carol', 'solo-1');
    const calls = world.llm.chatRequests().length;
    expect(await world.reflect('solo')).toMatchObject({
      synthesized: 0,
      admitted: 0,
      maxClusterCardinality: 1,
      sourceTrajectoryCount: 2,
      admissionOutcome: 'uncorroborated',
    });
    expect(world.llm.chatRequests()).toHaveLength(calls);
    expect(await procedures(world, 'solo')).toEqual([]);
    expect(await world.signals('reflect.admitted')).not.toContainEqual(expect.objectContaining({ agentId: 'solo' }));
  });

  it("keeps a lone sender's turns for later passes: another sender's later session corroborates them", async () => {
    await world.clockTurn('solo', 'dave', 'solo-2');
    world.llm.script(procedureReply());
    expect(await world.reflect('solo')).toMatchObject({
      synthesized: 1,
      admitted: 1,
      maxClusterCardinality: 2,
      sourceTrajectoryCount: 3,
      admissionOutcome: 'admitted',
    });
    expect(await procedures(world, 'solo')).toEqual([expect.objectContaining({ cardinality: 2 })]);
    // Nothing waits any more: the next pass has nothing new to read.
    expect(await world.reflect('solo')).toMatchObject({ sourceTrajectoryCount: 0, admissionOutcome: 'no_successes' });
  });

  it('re-reads an admitted cluster newer than a waiting one without asking the model again', async () => {
    await world.clockTurn('mixed', 'erin', 'mixed-0', 'Convert this currency amount into euros');
    await world.clockTurn('mixed', 'alice', 'mixed-1');
    await world.clockTurn('mixed', 'bob', 'mixed-2');
    world.llm.script(procedureReply());
    expect(await world.reflect('mixed')).toMatchObject({ admitted: 1, sourceTrajectoryCount: 3 });
    const calls = world.llm.chatRequests().length;
    expect(await world.reflect('mixed')).toMatchObject({
      synthesized: 0,
      admitted: 0,
      maxClusterCardinality: 2,
      sourceTrajectoryCount: 3,
      admissionOutcome: 'uncorroborated',
    });
    expect(world.llm.chatRequests()).toHaveLength(calls);
    expect(await procedures(world, 'mixed')).toHaveLength(1);
  });

  it('on a small-tier model writes the procedure without it, and obs.explain of a source session says so', async () => {
    const first = await world.clockTurn('mini', 'alice', 'mini-1');
    const second = await world.clockTurn('mini', 'bob', 'mini-2');
    const calls = world.llm.chatRequests().length;
    expect(await world.reflect('mini')).toMatchObject({ synthesized: 1, admitted: 1, admissionOutcome: 'admitted' });
    expect(world.llm.chatRequests()).toHaveLength(calls);
    expect(await procedures(world, 'mini')).toEqual([
      expect.objectContaining({
        name: 'office-right-current-time',
        tools: ['current_time'],
        cardinality: 2,
        synthesisAbstained: true,
      }),
    ]);
    for (const sessionKey of [first, second]) {
      const report = (await world.rpc('obs.explain', { sessionKey })) as unknown as IncidentReport;
      expect(report.learning).toMatchObject({ synthesisAbstained: true });
      expect(report.likelyRootCause.code).toBe('synthesis_abstained_low_capability');
    }
  });

  it('abstains on a nano-tier model too', async () => {
    await world.clockTurn('tiny', 'alice', 'tiny-1');
    await world.clockTurn('tiny', 'bob', 'tiny-2');
    const calls = world.llm.chatRequests().length;
    expect(await world.reflect('tiny')).toMatchObject({ admitted: 1, admissionOutcome: 'admitted' });
    expect(world.llm.chatRequests()).toHaveLength(calls);
    expect(await procedures(world, 'tiny')).toEqual([expect.objectContaining({ synthesisAbstained: true })]);
  });

  it('drops and counts webhook-originated turns: they never corroborate', async () => {
    for (const build of [1, 2]) {
      world.llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is noon.' });
      const body = JSON.stringify({ event: 'clock.check', source: 'ci', data: { build } });
      const response = await fetch(`${world.harness.url}/hooks/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex'),
        },
        body,
      });
      expect(response.status).toBe(202);
      const { runId } = (await response.json()) as { runId: string };
      await expect
        .poll(async () => (await world.rpc('run.get', { runId })).status, { timeout: 5_000, interval: 50 })
        .toBe('completed');
    }
    await world.clockTurn('hooks', 'alice', 'hooks-1');
    const funnel = await world.reflect('hooks');
    expect(funnel).toMatchObject({
      untrustedDrops: 2,
      sourceTrajectoryCount: 3,
      maxClusterCardinality: 1,
      admitted: 0,
    });
    // The two deliveries (two sessions of sender `ci`) would have corroborated each other had they been trusted.
    expect(funnel.admissionOutcome).toBe('untrusted_origin');
    expect(await procedures(world, 'hooks')).toEqual([]);
  });

  it('rejects a name over 64 characters and counts it', async () => {
    await world.clockTurn('wordy', 'alice', 'wordy-1');
    await world.clockTurn('wordy', 'bob', 'wordy-2');
    world.llm.script(procedureReply({ name: `tell-${'the-office-time-'.repeat(4)}now` }));
    expect(await world.reflect('wordy')).toMatchObject({
      synthesized: 1,
      validated: 0,
      admitted: 0,
      nameLengthRejections: 1,
      admissionOutcome: 'rejected_name_length',
    });
    expect(await procedures(world, 'wordy')).toEqual([]);
  });

  it('rejects a procedure naming a tool the agent is not given', async () => {
    await world.clockTurn('rogue', 'alice', 'rogue-1');
    await world.clockTurn('rogue', 'bob', 'rogue-2');
    world.llm.script(procedureReply({ tools: ['current_time', 'shell_exec'] }));
    expect(await world.reflect('rogue')).toMatchObject({
      synthesized: 1,
      validated: 0,
      admitted: 0,
      admissionOutcome: 'rejected_validation',
    });
    expect(await procedures(world, 'rogue')).toEqual([]);
  });

  it('counts an unparsable reply as an empty reflection', async () => {
    await world.clockTurn('blank', 'alice', 'blank-1');
    await world.clockTurn('blank', 'bob', 'blank-2');
    world.llm.script({ text: 'Sure! First you check the clock, then you answer.' });
    expect(await world.reflect('blank')).toMatchObject({
      synthesized: 0,
      admitted: 0,
      admissionOutcome: 'empty_reflection',
    });
  });

  it('with no agent named, passes every agent with turns to read (new, or waiting for corroboration); an unknown agent is not found', async () => {
    await world.clockTurn('rogue', 'dave', 'rogue-3');
    await world.clockTurn('blank', 'dave', 'blank-3');
    const { funnels } = (await world.rpc('skills.reflect')) as { funnels: ReflectFunnel[] };
    // hooks and mixed: their lone trusted turns still wait for corroboration (hooks' older webhook turns are not read
    // again); ops, mini, wordy: nothing new and nothing waiting.
    expect(funnels.map((funnel) => [funnel.agentId, funnel.sourceTrajectoryCount, funnel.admissionOutcome])).toEqual([
      ['hooks', 1, 'uncorroborated'],
      ['rogue', 1, 'uncorroborated'],
      ['blank', 1, 'uncorroborated'],
      ['mixed', 3, 'uncorroborated'],
    ]);
    const response = await callRpc(world.harness.url, world.harness.tokens.admin, 'skills.reflect', {
      agentId: 'ghost',
    });
    expect(response.error).toMatchObject({ data: { kind: 'not_found' } });
  });

  it('a later pass reads only newer turns, and an agent with none answers no_successes', async () => {
    expect(await world.reflect('ops')).toMatchObject({
      sourceTrajectoryCount: 0,
      totalSourceChars: 0,
      admissionOutcome: 'no_successes',
    });
  });
});
