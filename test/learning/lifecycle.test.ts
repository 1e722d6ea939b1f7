// Learned procedures through the learning module over real SQLite and the real obs stack, with turns driven through
// its turn hooks as the turn loop calls them (the skills registry's skill_read reports uses through `source`):
// admission, promotion after successful uses, demotion after corrected uses from two sessions then archive, the
// per-agent cap, skills.learned.*, the sources reflect reads, and obs.explain's learning block and
// learned_skill_failing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { learningConfigSchema, type LearningConfig } from '../../src/config/index.js';
import { createLearningModule, type CandidateProcedure, type LearningModule } from '../../src/learning/index.js';
import { TRAJECTORY_KIND } from '../../src/obs/index.js';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import { createLogger } from '../../src/obs/logger.js';
import type { MethodDefinition } from '../../src/rpc/types.js';
import { createLearningPort } from '../../src/store/shared/index.js';
import {
  createSqliteMemoryPort,
  createSqliteSessionPort,
  sqliteStoreDb,
  type SqliteSessionPort,
} from '../../src/store/sqlite/index.js';
import type { LearningPort } from '../../src/store/index.js';
import type { TurnHookContext } from '../../src/turns/types.js';
import { startObs, type ObsStack } from '../obs/support.js';

const log = createLogger({ level: 'silent' });

function candidate(overrides: Partial<CandidateProcedure> = {}): CandidateProcedure {
  return {
    agentId: 'main',
    name: 'tell-time',
    description: 'Tell the time of a city',
    body: '# Goal\nTell the time.\n## Steps\n1. current_time\n',
    tools: ['current_time'],
    toolSequence: ['current_time'],
    topicKey: 'city+time',
    cardinality: 3,
    synthesisAbstained: false,
    sourceTraceIds: ['a', 'b', 'c'],
    ...overrides,
  };
}

describe('learned procedure lifecycle', () => {
  let stack: ObsStack;
  let port: LearningPort;
  let sessions: SqliteSessionPort;
  let learning: LearningModule;
  let config: LearningConfig;
  let traces = 0;
  let reflected: (string | undefined)[] = [];
  /** Holds every outcome write back until resolved: the background lane busy while turns go on. */
  let gate: Promise<void> = Promise.resolve();

  beforeEach(() => {
    stack = startObs();
    port = createLearningPort(sqliteStoreDb(stack.db));
    sessions = createSqliteSessionPort(stack.db);
    config = learningConfigSchema.parse({ promoteAfter: 3, demoteAfter: 2, maxProceduresPerAgent: 3 });
    const memory = createSqliteMemoryPort(stack.db, { exactVectorSearch: true });
    let ids = 0;
    reflected = [];
    gate = Promise.resolve();
    learning = createLearningModule({
      port: {
        ...port,
        async saveOutcome(record) {
          await gate;
          await port.saveOutcome(record);
        },
      },
      sessions,
      memory: { demote: (list, at) => memory.demote(list, at), flushRecallMarks: async () => undefined },
      recorder: stack.recorder,
      signals: stack.obs.signals,
      router: {
        resolve: () => undefined,
        stream: () => {
          throw new Error('no judge configured');
        },
      },
      config: () => config,
      leases: { acquire: async () => true, release: async () => undefined },
      now: () => stack.clock.now,
      newId: () => `proc-${(ids += 1)}`,
      log,
      // Stands in for the reflect stage (src/learning/reflect), which reads through the ports it is given.
      reflector: (ports) => ({
        async reflect(agentId) {
          reflected.push(agentId);
          const sources = await ports.readSources(agentId ?? 'main', { maxTrajectories: 10, maxChars: 1_000 });
          return [{ agentId: agentId ?? 'main', sourceTrajectoryCount: sources.length }];
        },
      }),
    });
  });
  afterEach(async () => {
    await learning.stop?.();
    await stack.close();
  });

  /** One turn as the loop runs it: its message, the skills it read, its tool calls, its finish. */
  async function turn(
    session: string,
    message: string,
    {
      tools = [],
      procedureId,
      finish = 'stop',
      toolName = 'current_time',
      clientId = 'rpc-client',
      isAwaited = true,
    }: {
      tools?: boolean[];
      procedureId?: string;
      finish?: string;
      toolName?: string;
      clientId?: string;
      isAwaited?: boolean;
    } = {},
  ): Promise<string> {
    traces += 1;
    const traceId = `trace-${traces}`;
    stack.clock.now += 1_000;
    const sessionKey = `default:${session}:chat`;
    const ctx: TurnHookContext = {
      agentId: 'main',
      sessionKey,
      keyParts: { tenantId: 'default', userId: session, channelId: 'chat' },
      traceId,
      clientId,
      ownerId: 'rpc-client',
      signal: new AbortController().signal,
    };
    const recorded = stack.recorder.openTurn({
      traceId,
      sessionKey,
      agentId: 'main',
      channel: 'chat',
      startedAt: stack.clock.now,
      isSynthetic: false,
    });
    const set = learning.hooks;
    await set.beforeModel({ message, step: 1 }, ctx);
    if (procedureId !== undefined)
      learning.source.recordUse({ agentId: 'main', sessionKey, traceId, skill: 'tell-time', procedureId });
    for (const [index, ok] of tools.entries())
      await set.afterTool({ toolCallId: `c${index}`, toolName, input: {}, ok, durationMs: 1 }, ctx);
    recorded.step(TRAJECTORY_KIND.turnEnd, stack.clock.now, { finishReason: finish });
    await set.afterTurn(
      { finishReason: finish, steps: 1, tokensUsed: { input: 1, output: 1, total: 2 }, costUsd: 0 },
      ctx,
    );
    // As the turn loop names its ending (src/turns/turn-tally.ts endReasonOf).
    const failed = tools.some((ok) => !ok);
    const endReason = finish === 'stop' ? (failed ? 'completed_with_tool_errors' : 'completed') : finish;
    recorded.end({ endReason, degraded: endReason !== 'completed', endedAt: stack.clock.now });
    if (isAwaited) await learning.settled();
    return traceId;
  }
  const explain = async (session: string) => {
    await stack.recorder.flush();
    return (await stack.obs.explain({ sessionKey: `default:${session}:chat` })) as IncidentReport;
  };
  const method = (name: string) => {
    const found = learning.methods?.find((definition) => definition.name === name) as MethodDefinition | undefined;
    if (found === undefined) throw new Error(`no method ${name}`);
    return (params: unknown) => found.handler(found.params.parse(params) as never, {} as never);
  };
  const signals = async (kind: string) => {
    await stack.obs.flush();
    return (
      stack.db.prepare('SELECT data FROM health_signals WHERE kind = ? ORDER BY id').all(kind) as { data: string }[]
    ).map((row) => JSON.parse(row.data) as Record<string, unknown>);
  };

  it('admits a candidate once per tool sequence and topic key, and offers it to its agent only', async () => {
    expect(await learning.reflectPorts.admit(candidate())).toEqual({ id: 'proc-1', created: true });
    expect(await learning.reflectPorts.admit(candidate({ description: 'Tell the time, refreshed' }))).toEqual({
      id: 'proc-1',
      created: false,
    });
    expect(learning.source.offered('main')).toEqual([
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
    expect(learning.source.offered('other')).toEqual([]);
  });

  it('promotes a candidate after promoteAfter successful uses, with the signal and the learning_lifecycle record', async () => {
    const { id } = await learning.reflectPorts.admit(candidate());
    await turn('s1', 'What time is it in Rome?', { tools: [true], procedureId: id });
    await turn('s2', 'What time is it in Oslo?', { tools: [true], procedureId: id });
    expect((await port.procedure(id))?.state).toBe('candidate');
    await turn('s3', 'What time is it in Lima?', { tools: [true], procedureId: id });
    expect(await port.procedure(id)).toMatchObject({ state: 'active', successUses: 3, failureUses: 0 });
    expect(learning.source.offered('main').map((offered) => offered.state)).toEqual(['active']);
    expect(await signals('learning.skill_promoted')).toEqual([
      { agentId: 'main', count: 1, timestamp: stack.clock.now },
    ]);
    expect((await explain('s3')).learning).toEqual({
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
    const { id } = await learning.reflectPorts.admit(candidate());
    for (const session of ['p1', 'p2', 'p3']) await turn(session, 'Time in Rome?', { tools: [true], procedureId: id });
    expect((await port.procedure(id))?.state).toBe('active');

    // Two corrected uses in one session are one session: not enough.
    await turn('c1', 'Time in Paris?', { tools: [true], procedureId: id });
    await turn('c1', "No, that's wrong");
    await turn('c1', 'Time in Paris again?', { tools: [true], procedureId: id });
    await turn('c1', 'Wrong again');
    expect((await port.procedure(id))?.state).toBe('active');
    await turn('c2', 'Time in Bern?', { tools: [true], procedureId: id });
    await turn('c2', 'That is incorrect');
    expect(await port.procedure(id)).toMatchObject({ state: 'stale', successUses: 3, failureUses: 3 });
    expect(learning.source.offered('main').map((offered) => offered.state)).toEqual(['stale']);
    expect(await signals('learning.skill_demoted')).toEqual([
      { agentId: 'main', count: 1, timestamp: stack.clock.now },
    ]);

    const c2 = await explain('c2');
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

    await turn('c3', 'Time in Kyiv?', { tools: [true], procedureId: id });
    await turn('c3', 'no');
    expect((await port.procedure(id))?.state).toBe('stale');
    await turn('c4', 'Time in Baku?', { tools: [false], procedureId: id });
    expect((await port.procedure(id))?.state).toBe('archived');
    expect(learning.source.offered('main')).toEqual([]);

    const shown = (await method('skills.learned.get')({ id })) as { state: string; uses: { outcome: string }[] };
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
    const proven = await learning.reflectPorts.admit(candidate({ topicKey: 'proven', cardinality: 2 }));
    await turn('q1', 'Time?', { tools: [true], procedureId: proven.id });
    await learning.reflectPorts.admit(candidate({ topicKey: 'big', cardinality: 9 }));
    await learning.reflectPorts.admit(candidate({ topicKey: 'small', cardinality: 2 }));
    await learning.reflectPorts.admit(candidate({ topicKey: 'newest', cardinality: 5 }));
    const listed = (await method('skills.learned.list')({ agentId: 'main' })) as {
      procedures: { id: string; state: string; successUses: number }[];
    };
    expect(listed.procedures.map((procedure) => procedure.state)).toEqual([
      'candidate',
      'candidate',
      'archived',
      'candidate',
    ]);
    expect(listed.procedures[0]).toMatchObject({ id: proven.id, successUses: 1 });
    expect(learning.source.offered('main')).toHaveLength(3);
  });

  it('archives on skills.learned.archive, and answers not_found for an unknown id', async () => {
    const { id } = await learning.reflectPorts.admit(candidate());
    expect(await method('skills.learned.archive')({ id })).toEqual({ id, state: 'archived' });
    expect(learning.source.offered('main')).toEqual([]);
    await expect(method('skills.learned.get')({ id: 'missing' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(method('skills.learned.archive')({ id: 'missing' })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('runs a reflect pass on skills.reflect through the reflect stage wired over its ports; none when learning is off', async () => {
    await turn('x1', 'Time in Rome?', { tools: [true] });
    expect(await method('skills.reflect')({ agentId: 'main' })).toEqual({
      funnels: [{ agentId: 'main', sourceTrajectoryCount: 1 }],
    });
    expect(reflected).toEqual(['main']);
    config = { ...config, enabled: false };
    await expect(method('skills.reflect')({})).rejects.toMatchObject({ kind: 'unavailable' });
    expect(reflected).toEqual(['main']);
  });

  it("marks untrusted the turns of a webhook session and the turns that saw a tool's output (memory trust rules)", async () => {
    const trusted = await turn('t1', 'Time in Rome?', { tools: [true] });
    const sawOutput = await turn('t2', 'Fetch the page', { tools: [true], toolName: 'web_fetch' });
    const webhook = await turn('t3', 'Incoming order', { clientId: 'system:webhook' });
    const trust = async (traceId: string) => (await port.outcome(traceId))?.trusted;
    expect([await trust(trusted), await trust(sawOutput), await trust(webhook)]).toEqual([true, false, false]);
  });

  it('corrects the turn before the correction even when the background lane runs behind the turns', async () => {
    let release = () => undefined as void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const first = await turn('b1', 'Time in Rome?', { tools: [true], isAwaited: false });
    const correction = await turn('b1', "No, that's wrong", { isAwaited: false });
    release();
    await learning.settled();
    expect((await port.outcome(first))?.outcome).toBe('corrected');
    expect((await port.outcome(correction))?.outcome).toBeNull();
  });

  it('records nothing for a turn handing tool calls to its caller: it is not finished, the next request goes on', async () => {
    const traceId = await turn('h1', 'Run the local build', { tools: [true], finish: 'tool_calls' });
    expect(await port.outcome(traceId)).toBeUndefined();
    expect((await explain('h1')).learning).toBeUndefined();
  });

  it('takes reactions and pipeline results through observe, by session or trace, each a new learning_outcome', async () => {
    const traceId = await turn('o1', 'Summarise the report');
    expect((await explain('o1')).learning).toMatchObject({ outcomeResolved: false, sources: [] });
    expect(await learning.observe({ sessionKey: 'default:o1:chat', outcome: 'success', source: 'reaction' })).toEqual({
      traceId,
      outcome: 'success',
    });
    expect((await explain('o1')).learning).toMatchObject({ outcome: 'success', sources: ['reaction'] });
    await learning.observe({ traceId, outcome: 'failure', source: 'pipeline' });
    expect((await explain('o1')).learning).toMatchObject({ outcome: 'failure', sources: ['pipeline', 'reaction'] });
    expect(await port.outcome(traceId)).toMatchObject({ outcome: 'failure', sources: ['pipeline', 'reaction'] });
    expect(await learning.observe({ sessionKey: 'default:nobody:chat', outcome: 'success', source: 'reaction' })).toBe(
      undefined,
    );
  });

  it('reads the sources reflect asks for from the transcripts, bounded, and only those after the last pass', async () => {
    for (const session of ['r1', 'r2']) {
      await sessions.ensure({
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
      const at = stack.clock.now + 1;
      await sessions.append(
        `default:${session}:chat`,
        [
          { role: 'user', content: question, timestamp: at },
          { role: 'assistant', content: answer, timestamp: at },
        ],
        at,
      );
      return turn(session, question, { tools: [true] });
    };
    const first = await exchange('r1', 'Weather in Berlin?', 'Sunny.');
    const second = await exchange('r2', 'Weather in Bonn today?', 'Rain.');
    const third = await exchange('r1', 'Weather in Berlin tomorrow?', 'Cloudy.');

    const all = await learning.reflectPorts.readSources('main', { maxTrajectories: 10, maxChars: 1_000 });
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
      (await learning.reflectPorts.readSources('main', { maxTrajectories: 10, maxChars: newest + 5 })).map(
        (source) => source.traceId,
      ),
    ).toEqual([third]);
    expect(
      (await learning.reflectPorts.readSources('main', { maxTrajectories: 2, maxChars: 1_000 })).map(
        (source) => source.traceId,
      ),
    ).toEqual([third, second]);

    await learning.reflectPorts.markPassed('main', (await port.outcome(second))?.ts ?? 0);
    expect(
      (await learning.reflectPorts.readSources('main', { maxTrajectories: 10, maxChars: 1_000 })).map(
        (source) => source.traceId,
      ),
    ).toEqual([third]);
  });
});
