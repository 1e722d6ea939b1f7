// End to end: a learned procedure's whole lifecycle through real turns of a started gateway over the fake LLM — admitted
// by skills.reflect from three sessions of two senders, offered to an opted-in agent and read through skill_read,
// promoted after promoteAfter successful uses, demoted after corrected uses from two sessions (a correction message and
// session.feedback), archived after two more (out of skills.list and the prompt, kept for skills.learned.get); another
// token's feedback refused; obs.explain's learning block and learned_skill_failing.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReflectFunnel } from '../../src/learning/reflect/index.js';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const QUESTION = 'What time is it right now in the office?';
const PROCEDURE = 'tell-the-office-time';
const OTHER_RPC = 'rpc-other-secret-0123456789abcdefghijklm';

interface Use {
  traceId: string;
  sessionKey: string;
  outcome: string | null;
}
interface Learned {
  id: string;
  state: string;
  successUses: number;
  failureUses: number;
  body: string;
  uses: Use[];
}
interface ListedSkill {
  name: string;
  source: string;
  state?: string;
  id?: string;
}
interface ChatBody {
  messages: { role: string; content?: unknown }[];
}

describe('learned procedure lifecycle through real turns', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let procedureId = '';

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: {
        clock: { name: 'Clock', provider: 'fake', model: 'fake-model', tools: ['current_time'], skills: '*' },
      },
      extraTokens: [{ id: 'rpc-other', secret: OTHER_RPC, scopes: ['rpc'] }],
      skills: { watch: false },
      learning: { reflectIntervalMs: 0, promoteAfter: 3, demoteAfter: 2 },
    });
  }, 30_000);
  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  const rpc = async <T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    token = harness.tokens.admin,
  ): Promise<T> => {
    const response = await callRpc(harness.url, token, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as T;
  };
  /** One turn of the clock agent by the rpc token (so the session is its own) for `userId` in conversation `peerId`. */
  const turn = async (userId: string, peerId: string, message = QUESTION): Promise<string> => {
    const sessionKey = { tenantId: 'default', userId, channelId: 'test', peerId };
    const result = await rpc<{ finishReason: string }>(
      'agent.execute',
      { agentId: 'clock', message, sessionKey },
      harness.tokens.rpc,
    );
    expect(result.finishReason).toBe('stop');
    return `default:${userId}:test:${peerId}`;
  };
  /** A turn in which the model reads the procedure through skill_read (`reads` times), calls the clock it names, then answers. */
  const useTurn = (userId: string, peerId: string, reads = 1) => {
    llm.script(
      { toolCalls: Array.from({ length: reads }, () => ({ name: 'skill_read', arguments: { name: PROCEDURE } })) },
      { toolCalls: [{ name: 'current_time', arguments: {} }] },
      { text: 'It is noon.' },
    );
    return turn(userId, peerId);
  };
  const learned = () => rpc<Learned>('skills.learned.get', { id: procedureId });
  /** Waits until the use of the turns of `sessionKey` settled with `outcome` (the outcome writes run off the turn). */
  const settled = async (sessionKey: string, outcome: string) => {
    await expect
      .poll(
        async () => (await learned()).uses.filter((use) => use.sessionKey === sessionKey).map((use) => use.outcome),
        {
          timeout: 10_000,
          interval: 50,
        },
      )
      .toContain(outcome);
  };
  const listed = async () =>
    (await rpc<{ skills: ListedSkill[] }>('skills.list', { agentId: 'clock' })).skills.filter(
      (skill) => skill.source === 'learned',
    );
  const explain = (sessionKey: string) => rpc<IncidentReport>('obs.explain', { sessionKey });
  const systemText = (index = -1) =>
    ((llm.chatRequests().at(index)?.body as ChatBody | undefined)?.messages ?? [])
      .filter((message) => message.role === 'system')
      .map((message) => String(message.content))
      .join('\n');
  const signals = async (kind: string) => {
    await harness.app.observability.flush();
    const db = new Database(harness.paths.databasePath, { readonly: true });
    try {
      const rows = db.prepare('SELECT data FROM health_signals WHERE kind = ? ORDER BY id').all(kind) as {
        data: string;
      }[];
      return rows.map((row) => JSON.parse(row.data) as Record<string, unknown>);
    } finally {
      db.close();
    }
  };

  it('admits a candidate from three sessions of two senders; the opted-in agent is offered it', async () => {
    for (const [userId, peerId] of [
      ['alice', 'adm-1'],
      ['alice', 'adm-2'],
      ['bob', 'adm-3'],
    ] as const) {
      llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is noon.' });
      await turn(userId, peerId);
    }
    llm.script({
      text: JSON.stringify({
        name: PROCEDURE,
        description: 'Tells the current time in the office by reading the clock.',
        goal: 'Answer what time it is.',
        steps: ['Call current_time.', 'Answer with the time it returned.'],
        tools: ['current_time'],
      }),
    });
    const { funnels } = await rpc<{ funnels: ReflectFunnel[] }>('skills.reflect', { agentId: 'clock' });
    expect(funnels).toEqual([
      expect.objectContaining({
        agentId: 'clock',
        admitted: 1,
        maxClusterCardinality: 3,
        admissionOutcome: 'admitted',
      }),
    ]);
    const { procedures } = await rpc<{ procedures: { id: string; name: string; state: string }[] }>(
      'skills.learned.list',
      { agentId: 'clock' },
    );
    expect(procedures).toEqual([expect.objectContaining({ name: PROCEDURE, state: 'candidate' })]);
    procedureId = procedures[0]?.id ?? '';
    expect(await listed()).toEqual([
      expect.objectContaining({ name: PROCEDURE, source: 'learned', state: 'candidate', id: procedureId }),
    ]);
  });

  it('promotes it after promoteAfter successful turns that read it: active, the signal, and skillsPromoted', async () => {
    // Read twice in one turn: one use of it, not two.
    await useTurn('carol', 'use-1', 2);
    // The first model call listed it as a learned candidate; the next one got its body back from skill_read.
    expect(systemText(-3)).toContain(`- ${PROCEDURE} (learned, candidate): Tells the current time`);
    const toolResults = ((llm.chatRequests().at(-2)?.body as ChatBody).messages ?? []).filter(
      (message) => message.role === 'tool',
    );
    expect(toolResults.map((message) => String(message.content)).join('\n')).toContain(
      'Answer with the time it returned.',
    );
    await settled('default:carol:test:use-1', 'success');
    expect(await learned()).toMatchObject({ state: 'candidate', successUses: 1 });
    await useTurn('dave', 'use-2');
    await settled('default:dave:test:use-2', 'success');
    expect((await learned()).state).toBe('candidate');
    const third = await useTurn('carol', 'use-3');
    await expect.poll(async () => (await learned()).state, { timeout: 10_000, interval: 50 }).toBe('active');
    expect(await learned()).toMatchObject({ successUses: 3, failureUses: 0 });
    await expect
      .poll(async () => (await listed()).map((skill) => skill.state), { timeout: 10_000 })
      .toEqual(['active']);
    expect(await signals('learning.skill_promoted')).toEqual([
      { agentId: 'clock', count: 1, timestamp: expect.any(Number) },
    ]);
    await expect
      .poll(async () => (await explain(third)).learning, { timeout: 10_000, interval: 50 })
      .toEqual({
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

  it('demotes it to stale after uses corrected in two sessions (a correction message, then session.feedback)', async () => {
    const first = await useTurn('erin', 'bad-1');
    await settled(first, 'success');
    await turn('erin', 'bad-1', "That's wrong, the office clock says something else.");
    await settled(first, 'corrected');
    expect((await learned()).state).toBe('active');
    // A second corrected use in the same session is still one session: not enough.
    await useTurn('erin', 'bad-1');
    await expect
      .poll(async () => (await learned()).uses.filter((use) => use.sessionKey === first).map((use) => use.outcome))
      .toEqual(['success', 'corrected']);
    await turn('erin', 'bad-1', 'Wrong again.');
    await expect
      .poll(async () => (await learned()).uses.filter((use) => use.sessionKey === first).map((use) => use.outcome))
      .toEqual(['corrected', 'corrected']);
    expect(await learned()).toMatchObject({ state: 'active', successUses: 3, failureUses: 2 });

    const second = await useTurn('frank', 'bad-2');
    await settled(second, 'success');
    // Another rpc token may not give feedback on the rpc token's session: refused, nothing changed.
    const before = await learned();
    const refused = await callRpc(harness.url, OTHER_RPC, 'session.feedback', {
      sessionKey: second,
      outcome: 'corrected',
    });
    expect(refused.error).toMatchObject({ data: { kind: 'forbidden' } });
    expect(await learned()).toEqual(before);
    expect((await explain(second)).learning).toMatchObject({ outcome: 'success', sources: ['tool'] });

    expect(
      await rpc('session.feedback', { sessionKey: second, outcome: 'corrected' }, harness.tokens.rpc),
    ).toMatchObject({ sessionKey: second, outcome: 'corrected' });
    expect((await learned()).state).toBe('stale');
    expect(await learned()).toMatchObject({ successUses: 3, failureUses: 3 });
    expect(await signals('learning.skill_demoted')).toEqual([
      { agentId: 'clock', count: 1, timestamp: expect.any(Number) },
    ]);
    expect((await explain(second)).learning).toMatchObject({
      outcome: 'corrected',
      sources: ['tool', 'explicit'],
      skillsDemoted: 1,
    });
    // The correction message's session: its skill use failed.
    const corrected = await explain(first);
    expect(corrected.learning).toMatchObject({
      outcome: 'corrected',
      sources: ['tool', 'correction'],
      skillsUsed: 4,
      skillFailures: 2,
    });
    expect(corrected.likelyRootCause.code).toBe('learned_skill_failing');
    await expect.poll(async () => (await listed()).map((skill) => skill.state), { timeout: 10_000 }).toEqual(['stale']);
  });

  it('archives it after two more: gone from skills.list and the prompt, still readable with skills.learned.get', async () => {
    const third = await useTurn('gina', 'bad-3');
    expect(systemText(-3)).toContain(`- ${PROCEDURE} (learned, stale)`);
    await settled(third, 'success');
    await turn('gina', 'bad-3', 'Not what I asked, try again.');
    await settled(third, 'corrected');
    expect((await learned()).state).toBe('stale');

    const fourth = await useTurn('hank', 'bad-4');
    await settled(fourth, 'success');
    await rpc('session.feedback', { sessionKey: fourth, outcome: 'corrected' }, harness.tokens.rpc);
    const archived = await learned();
    expect(archived).toMatchObject({ state: 'archived', successUses: 3, failureUses: 5 });
    expect(archived.body).toContain('Answer with the time it returned.');
    expect(archived.uses.map((use) => use.outcome)).toEqual([
      'corrected',
      'corrected',
      'corrected',
      'corrected',
      'corrected',
      'success',
      'success',
      'success',
    ]);
    expect(await signals('learning.skill_demoted')).toHaveLength(2);
    await expect.poll(async () => listed(), { timeout: 10_000 }).toEqual([]);

    // Out of the agent's prompt, and skill_read no longer finds it: no use is recorded.
    llm.script({ toolCalls: [{ name: 'skill_read', arguments: { name: PROCEDURE } }] }, { text: 'Hello.' });
    await turn('ivy', 'after', 'Hello there');
    expect(systemText(-2)).not.toContain(PROCEDURE);
    const refusedRead = ((llm.chatRequests().at(-1)?.body as ChatBody).messages ?? []).filter(
      (message) => message.role === 'tool',
    );
    const readResult = refusedRead.map((message) => String(message.content)).join('\n');
    expect(readResult).toContain(`Skill '${PROCEDURE}' not found`);
    expect(readResult).not.toContain('Answer with the time it returned.');
    expect((await rpc<{ skills: unknown[] }>('skills.list', {})).skills).toEqual([]);
    expect((await explain(fourth)).likelyRootCause.code).toBe('learned_skill_failing');
  });
});
