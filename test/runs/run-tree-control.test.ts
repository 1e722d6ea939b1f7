// run.kill and lease.revoke over a real WebSocket against the real app: a three-level spawn tree (spawn → spawn → spawn)
// held open by the fake LLM, stopped from any of its runs; every level ends revoked and no further model call happens.
import type { BusEvent } from '../../src/events/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { startFakeLlm, type FakeLlm, type RecordedRequest, type ScriptedReply } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connectOpen, type Frame, type TestSocket } from '../support/ws-client.js';
import { deferred } from '../sessions/scripted-runner.js';

interface ChatMessage {
  role: string;
  content?: unknown;
}

const messagesOf = (request: RecordedRequest): ChatMessage[] => {
  const body = request.body;
  return typeof body === 'object' && body !== null && 'messages' in body && Array.isArray(body.messages)
    ? (body.messages as ChatMessage[])
    : [];
};
const taskOf = (request: RecordedRequest): string =>
  String(messagesOf(request).find((message) => message.role === 'user')?.content ?? '');
const hasToolResult = (request: RecordedRequest): boolean =>
  messagesOf(request).some((message) => message.role === 'tool');

/**
 * The model of every level: levels 1 and 2 spawn the next level with session_spawn, then their second call is held;
 * level 3's first call is held and, once released, asks for current_time (so a revoked level 3 still runs its tool).
 */
function treeModel(release: Promise<void>) {
  return (request: RecordedRequest): ScriptedReply => {
    const task = taskOf(request);
    const level = Number(/level (\d)/.exec(task)?.[1] ?? 0);
    if (level === 3 && !hasToolResult(request))
      return { heldUntil: release, toolCalls: [{ name: 'current_time', arguments: {} }] };
    if (level === 3) return { text: 'level 3 done' };
    if (!hasToolResult(request))
      return { toolCalls: [{ name: 'session_spawn', arguments: { task: `level ${level + 1}` } }] };
    return { heldUntil: release, text: `level ${level} done` };
  };
}

const resultOf = (frame: Frame): Record<string, unknown> => {
  if (frame.error !== undefined) throw new Error(JSON.stringify(frame.error));
  return frame.result as Record<string, unknown>;
};

interface RunEntry {
  runId: string;
  rootRunId: string;
  status: string;
  completedAt?: number;
  parentKey: string | null;
  sessionKey: string;
  kind: string;
}

describe('run tree control', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let admin: TestSocket;
  let events: BusEvent[];
  let release: ReturnType<typeof deferred>;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(async () => {
    release.resolve();
    await admin.close();
    await harness.close();
    llm.reset();
  });

  async function startTree(): Promise<RunEntry[]> {
    release = deferred();
    llm.setDefaultReply(treeModel(release.promise));
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: {
        default: { name: 'Worker', provider: 'fake', model: 'fake-model', tools: ['session_spawn', 'current_time'] },
      },
    });
    events = [];
    harness.app.events.subscribe((event) => void events.push(event));
    admin = await connectOpen(harness.wsUrl, { token: harness.tokens.admin });
    const root = resultOf(await admin.call('session.spawn', { parentKey: 'default:ops:ws:control', task: 'level 1' }));
    // Levels 1 and 2 wait in their second model call, level 3 in its first: five model calls, three held open.
    await expect.poll(() => llm.chatRequests().length, { timeout: 10_000 }).toBe(5);
    const tree = resultOf(await admin.call('run.list', { rootRunId: root.runId })).runs as RunEntry[];
    expect(tree.map((run) => run.status)).toEqual(['running', 'running', 'running']);
    // Newest first: level 3, level 2, level 1.
    return tree;
  }

  const treeOf = async (rootRunId: string): Promise<RunEntry[]> =>
    resultOf(await admin.call('run.list', { rootRunId })).runs as RunEntry[];
  const allEnded = async (rootRunId: string) => (await treeOf(rootRunId)).every((run) => run.completedAt !== undefined);

  it('run.kill on the leaf aborts all three levels at once; each ends revoked and no model call follows', async () => {
    const [leaf, middle, root] = await startTree();
    expect(leaf?.parentKey).toBe(middle?.sessionKey);
    expect(middle?.parentKey).toBe(root?.sessionKey);
    expect(root?.rootRunId).toBe(root?.runId);

    expect(resultOf(await admin.call('run.kill', { runId: leaf?.runId }))).toEqual({
      runId: leaf?.runId,
      status: 'revoked',
    });
    await expect.poll(() => allEnded(root?.rootRunId ?? ''), { timeout: 10_000 }).toBe(true);

    expect((await treeOf(root?.rootRunId ?? '')).map((run) => ({ status: run.status, kind: run.kind }))).toEqual([
      { status: 'revoked', kind: 'spawn' },
      { status: 'revoked', kind: 'spawn' },
      { status: 'revoked', kind: 'spawn' },
    ]);
    // The held calls were cut mid-flight, and nothing asked the model again, even once the replies were let go.
    expect(llm.chatRequests().filter((request) => request.closedByClient)).toHaveLength(3);
    release.resolve();
    await harness.app.observability.flush();
    expect(llm.chatRequests()).toHaveLength(5);
    expect(events.filter((event) => event.name === 'run:killed').map((event) => event.payload)).toEqual([
      { runId: leaf?.runId, rootRunId: root?.runId, runs: 3, by: 'admin' },
    ]);
    expect(events.some((event) => event.name === 'run:revoked')).toBe(false);
    expect(resultOf(await admin.call('run.get', { runId: middle?.runId }))).toMatchObject({
      status: 'revoked',
      error: 'The run was killed (run.kill)',
    });

    // A killed tree takes no new runs: a spawn from its sessions is refused.
    const refused = await admin.call('session.spawn', { parentKey: leaf?.sessionKey, task: 'level 4' });
    expect(refused.error).toMatchObject({ code: -32603, data: { kind: 'conflict' } });

    const fleet = resultOf(await admin.call('obs.fleet.health', {})) as unknown as FleetHealthReport;
    expect(fleet.autonomy).toMatchObject({
      runs: { total: 3, degraded: 3 },
      revoked: 3,
      killed: 1,
      orphaned: 0,
      denialBreakerTrips: 0,
      worstRootRunId: root?.runId,
    });
    expect(fleet.findings.map((finding) => finding.code)).toEqual(
      expect.arrayContaining(['autonomy_killed', 'autonomy_revoked']),
    );
  });

  it('lease.revoke lets each level finish its current step, then stops it at the step boundary; all end revoked', async () => {
    const [leaf, , root] = await startTree();
    expect(resultOf(await admin.call('lease.revoke', { runId: root?.runId }))).toEqual({
      runId: root?.runId,
      status: 'revoked',
    });
    // The state is revoked at once, before the turns reach their boundary.
    expect(resultOf(await admin.call('run.get', { runId: leaf?.runId }))).toMatchObject({ status: 'revoked' });
    expect(llm.chatRequests().some((request) => request.closedByClient)).toBe(false);

    release.resolve();
    await expect.poll(() => allEnded(root?.rootRunId ?? ''), { timeout: 10_000 }).toBe(true);
    expect((await treeOf(root?.rootRunId ?? '')).map((run) => run.status)).toEqual(['revoked', 'revoked', 'revoked']);
    // Level 3's held step finished (its current_time call ran) but no model call followed it.
    expect(llm.chatRequests()).toHaveLength(5);
    expect(llm.chatRequests().some((request) => request.closedByClient)).toBe(false);
    const transcript = resultOf(await admin.call('session.export', { session_key: leaf?.sessionKey }));
    expect((transcript.messages as { role: string }[]).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
    expect(resultOf(await admin.call('run.get', { runId: root?.runId }))).toMatchObject({
      status: 'revoked',
      response: 'level 1 done',
    });

    expect(events.filter((event) => event.name === 'run:revoked').map((event) => event.payload)).toEqual([
      { runId: root?.runId, rootRunId: root?.runId, runs: 3, by: 'admin' },
    ]);
    expect(events.some((event) => event.name === 'run:killed')).toBe(false);
    const fleet = resultOf(await admin.call('obs.fleet.health', {})) as unknown as FleetHealthReport;
    expect(fleet.autonomy).toMatchObject({
      runs: { total: 3, degraded: 3 },
      revoked: 3,
      killed: 0,
      worstRootRunId: root?.runId,
    });
    expect(fleet.findings.map((finding) => finding.code)).toContain('autonomy_revoked');
    expect(fleet.findings.map((finding) => finding.code)).not.toContain('autonomy_killed');
  });
});
