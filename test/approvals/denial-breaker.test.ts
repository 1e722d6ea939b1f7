// The capability-denial breaker through the real TurnService, SQLite and the fake LLM: consecutive denials in a run
// tree call DenialBreaker.tripDenialBreaker (here a test implementation that aborts the tree, as run control does).
import { createEventBus } from '../../src/events/index.js';
import { randomUUID } from 'node:crypto';
import { readSessionKey } from '../../src/sessions/index.js';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/agents/index.js';
import { createApprovalsModule, type ApprovalsModule, type DenialBreaker } from '../../src/approvals/index.js';
import { approvalsConfigSchema, providerConfigSchema, type ApprovalsConfig } from '../../src/config/index.js';
import { createLocalInstances } from '../../src/coordination/index.js';
import { createAuditLog, type AuditLog } from '../../src/obs/audit.js';
import { createLogger, createRecorder, type Recorder } from '../../src/obs/index.js';
import { createModelRouter } from '../../src/providers/index.js';
import {
  createSqliteApprovalPort,
  createSqliteAuditPort,
  createSqliteEvidencePort,
  createSqliteSessionPort,
  openDatabase,
  type SqliteDatabase,
  type SqliteSessionPort,
} from '../../src/store/sqlite/index.js';
import type { TurnResult, TurnService } from '../../src/turns/index.js';
import { callerOf, staticAgents } from '../sessions/service-fixture.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { createTurnServiceFixture } from '../turns/turn-fixture.js';

const log = createLogger({ level: 'silent' });
const SESSION = 'default:alice:subagent:run-1';

/** Run control's side as a test implementation: records each trip and aborts the tree's turns. */
function recordingBreaker(tree: AbortController): DenialBreaker & { trips: unknown[] } {
  const trips: unknown[] = [];
  return {
    trips,
    async tripDenialBreaker(rootRunId, detail) {
      trips.push({ rootRunId, ...detail });
      tree.abort();
    },
  };
}

describe('denial breaker', () => {
  let llm: FakeLlm;
  let db: SqliteDatabase;
  let recorder: Recorder;
  let audit: AuditLog;
  let store: SqliteSessionPort;
  /** The module of the latest turnsWith(); every one built is stopped after the test. */
  let module: ApprovalsModule;
  const modules: ApprovalsModule[] = [];
  let toolRuns: string[];

  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
    db = openDatabase({ path: ':memory:' });
    store = createSqliteSessionPort(db);
    recorder = createRecorder({ port: createSqliteEvidencePort(db) });
    audit = createAuditLog({ port: createSqliteAuditPort(db), now: Date.now, newId: randomUUID });
    toolRuns = [];
  });
  afterEach(async () => {
    for (const built of modules.splice(0)) await built.stop?.();
    await audit.close();
    await recorder.close();
    store.flush();
    db.close();
  });

  function turnsWith(breaker: DenialBreaker, config: Partial<ApprovalsConfig> = {}): TurnService {
    const events = createEventBus({ now: Date.now, log });
    const router = createModelRouter({
      config: {
        local: providerConfigSchema.parse({
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small' }],
        }),
      },
      events,
      log,
    });
    const agents = staticAgents({
      default: {
        name: 'Assistant',
        provider: 'local',
        model: 'small',
        maxSteps: 8,
        tools: ['shell'],
        requireApproval: ['shell'],
      },
    });
    const settings = approvalsConfigSchema.parse(config);
    module = createApprovalsModule({
      port: createSqliteApprovalPort(db),
      events,
      audit,
      agents,
      config: () => settings,
      instances: createLocalInstances('node-a'),
      denialBreaker: breaker,
      now: Date.now,
      newId: randomUUID,
      log,
    });
    modules.push(module);
    const shell = defineTool({
      name: 'shell',
      description: 'Runs a command.',
      input: z.strictObject({ command: z.string() }),
      execute: async ({ command }) => {
        toolRuns.push(command);
        return { ran: command };
      },
    });
    return createTurnServiceFixture({ agents, router, store, recorder, events, tools: [shell], hookSources: [module] });
  }

  const shellCall = (command: string) => ({ toolCalls: [{ name: 'shell', arguments: { command } }] });

  /** Decides each request as it arrives, in order, until `decisions` is used up. */
  async function decide(decisions: boolean[]): Promise<void> {
    for (const approved of decisions) {
      await expect.poll(async () => (await module.approvals.pending()).length).toBe(1);
      const [request] = await module.approvals.pending();
      await module.approvals.resolve(String(request?.id), { approved, resolvedBy: 'ops' });
    }
  }

  async function toolMessages(): Promise<string[]> {
    return (await store.history(SESSION))
      .filter((message) => message.role === 'tool')
      .map((message) => message.content);
  }

  it('trips after approvals.denialBreakerThreshold consecutive denials in one run tree, and the turn sees each denial', async () => {
    const tree = new AbortController();
    const breaker = recordingBreaker(tree);
    const turns = turnsWith(breaker);
    llm.script(shellCall('rm a'), shellCall('rm b'), shellCall('rm c'), { text: 'never asked' });
    const turn: Promise<TurnResult> = turns.run({
      ...readSessionKey(SESSION),
      message: 'clean up',
      caller: callerOf('alice'),
      signal: tree.signal,
      rootRunId: 'run-1',
    });
    await decide([false, false, false]);
    expect((await turn).finishReason).toBe('aborted');
    expect(breaker.trips).toEqual([{ rootRunId: 'run-1', agentId: 'default', consecutiveDenials: 3 }]);
    expect(toolRuns).toEqual([]);
    expect(await toolMessages()).toEqual([
      'Error: shell was denied: denied by ops',
      'Error: shell was denied: denied by ops',
      'Error: shell was denied: denied by ops',
    ]);
  });

  it('counts only consecutive denials: an approved call in the tree starts the count over', async () => {
    const tree = new AbortController();
    const breaker = recordingBreaker(tree);
    const turns = turnsWith(breaker);
    llm.script(shellCall('rm a'), shellCall('rm b'), shellCall('ls'), shellCall('rm c'), shellCall('rm d'), {
      text: 'done',
    });
    const turn = turns.run({
      ...readSessionKey(SESSION),
      message: 'clean up',
      caller: callerOf('alice'),
      signal: tree.signal,
      rootRunId: 'run-1',
    });
    await decide([false, false, true, false, false]);
    expect(await turn).toMatchObject({ finishReason: 'stop', response: 'done' });
    expect(breaker.trips).toEqual([]);
    expect(toolRuns).toEqual(['ls']);
  });

  it('counts timeouts and cached denials too, but never trips for a turn outside a run tree', async () => {
    const tree = new AbortController();
    const breaker = recordingBreaker(tree);
    const turns = turnsWith(breaker, { timeoutMs: 50, denialBreakerThreshold: 2 });
    llm.script(shellCall('rm a'), shellCall('rm b'), { text: 'plain turn done' });
    const plain = await turns.run({
      ...readSessionKey('default:alice:ws'),
      message: 'no tree',
      caller: callerOf('alice'),
      signal: new AbortController().signal,
    });
    expect(plain.response).toBe('plain turn done');
    expect(breaker.trips).toEqual([]);

    // An operator denial, cached, then the same call again: the cached denial is the second in a row.
    llm.script(shellCall('rm x'), shellCall('rm x'));
    const turn = turns.run({
      ...readSessionKey(SESSION),
      message: 'again',
      caller: callerOf('alice'),
      signal: tree.signal,
      rootRunId: 'run-2',
    });
    await decide([false]);
    expect((await turn).finishReason).toBe('aborted');
    expect(breaker.trips).toEqual([{ rootRunId: 'run-2', agentId: 'default', consecutiveDenials: 2 }]);

    const timeoutTree = new AbortController();
    const timeoutBreaker = recordingBreaker(timeoutTree);
    const timed = turnsWith(timeoutBreaker, { timeoutMs: 50, denialBreakerThreshold: 2 });
    llm.script(shellCall('rm y'), shellCall('rm z'));
    const slow = await timed.run({
      ...readSessionKey('default:alice:subagent:run-3'),
      message: 'nobody answers',
      caller: callerOf('alice'),
      signal: timeoutTree.signal,
      rootRunId: 'run-3',
    });
    expect(slow.finishReason).toBe('aborted');
    expect(timeoutBreaker.trips).toEqual([{ rootRunId: 'run-3', agentId: 'default', consecutiveDenials: 2 }]);
  });
});
