// Dashboard end to end: the Skills page (a skill loaded from a skills dir, a learned procedure admitted from real turns
// with Reflect now, its evidence, Archive, Reload skills) and the Chat page's feedback on an answer, read back through
// obs.explain's learning block.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../../src/obs/explain/index.js';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

const QUESTION = 'What time is it right now in the office?';
const PROCEDURE = 'tell-the-office-time';

async function writeSkill(root: string, name: string, description: string, body: string): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
}

describe('dashboard skills and answer feedback', () => {
  let world: DashboardWorld;
  let skillsDir = '';
  beforeAll(async () => {
    skillsDir = await mkdtemp(join(tmpdir(), 'dashboard-skills-'));
    await writeSkill(skillsDir, 'release-notes', 'Writes release notes from merged changes', '# Release notes');
    world = await startDashboardWorld({
      skills: { dirs: [skillsDir], watch: false },
      learning: { reflectIntervalMs: 0 },
      extraAgents: {
        learner: { name: 'Learner', provider: 'fake', model: 'fake-model', tools: ['current_time'], skills: '*' },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await rm(skillsDir, { recursive: true, force: true });
  });

  const rpc = async <T = Record<string, unknown>>(method: string, params: unknown = {}): Promise<T> => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as T;
  };
  const learnerTurn = (userId: string, peerId: string) =>
    rpc('agent.execute', {
      agentId: 'learner',
      message: QUESTION,
      sessionKey: { tenantId: 'default', userId, channelId: 'test', peerId },
    });
  /** The outcome records of a session's turns, oldest first, from the gateway's SQLite database. */
  const storedOutcomes = (sessionKey: string) => {
    const db = new Database(world.gateway.paths.databasePath, { readonly: true });
    try {
      return db
        .prepare(
          'SELECT trace_id AS traceId, outcome, sources FROM learning_outcomes WHERE session_key = ? ORDER BY ts',
        )
        .all(sessionKey) as { traceId: string; outcome: string | null; sources: string }[];
    } finally {
      db.close();
    }
  };
  const learned = async () =>
    (
      await rpc<{ procedures: { id: string; name: string; state: string }[] }>('skills.learned.list', {
        agentId: 'learner',
      })
    ).procedures;

  it('lists the loaded skill and a procedure admitted with Reflect now; shows its evidence and archives it', async () => {
    const { page } = world.browser;
    for (const [userId, peerId] of [
      ['alice', 'adm-1'],
      ['alice', 'adm-2'],
      ['bob', 'adm-3'],
    ] as const) {
      world.llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is noon.' });
      await learnerTurn(userId, peerId);
    }
    await openSignedIn(world, 'skills');
    const loaded = page.getByRole('region', { name: 'Loaded skills' });
    await expect.poll(() => loaded.getByRole('row').filter({ hasText: 'release-notes' }).count()).toBe(1);
    expect(await loaded.textContent()).toContain('Writes release notes from merged changes');
    const procedures = page.getByRole('region', { name: 'Learned procedures' });
    await expect.poll(() => procedures.getByText('No learned procedures yet', { exact: false }).count()).toBe(1);

    // The agent's model writes the procedure from the three sessions' cluster.
    world.llm.script({
      text: JSON.stringify({
        name: PROCEDURE,
        description: 'Tells the current time in the office by reading the clock.',
        goal: 'Answer what time it is.',
        steps: ['Call current_time.', 'Answer with the time it returned.'],
        tools: ['current_time'],
      }),
    });
    await procedures.getByRole('button', { name: 'Reflect now' }).click();
    const status = page.getByRole('status').filter({ hasText: 'learner: admitted' });
    await expect.poll(() => status.count(), { timeout: 15_000 }).toBe(1);
    expect(await status.textContent()).toContain('3 source turns');
    const row = procedures.getByRole('row').filter({ hasText: PROCEDURE });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('candidate');
    const [procedure] = await learned();
    expect(procedure).toMatchObject({ name: PROCEDURE, state: 'candidate' });

    // One turn reads it through skill_read: a use in its evidence.
    world.llm.script(
      { toolCalls: [{ name: 'skill_read', arguments: { name: PROCEDURE } }] },
      { toolCalls: [{ name: 'current_time', arguments: {} }] },
      { text: 'It is noon.' },
    );
    await learnerTurn('carol', 'use-1');
    await expect
      .poll(async () => (await rpc<{ uses: unknown[] }>('skills.learned.get', { id: procedure?.id })).uses.length, {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(1);
    await page.reload();
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.textContent()).toContain('1 / 0');
    const evidence = procedures.getByRole('button', { name: `Evidence of ${PROCEDURE}` });
    await evidence.click();
    expect(await evidence.getAttribute('aria-expanded')).toBe('true');
    const body = procedures.locator('pre').filter({ hasText: 'Answer with the time it returned.' });
    await expect.poll(() => body.count(), { timeout: 10_000 }).toBe(1);
    const uses = procedures.locator('details', { hasText: 'Uses (1)' });
    expect(await uses.count()).toBe(1);
    await uses.locator('summary').click();
    expect(await uses.textContent()).toContain('default:carol:test:use-1');
    expect(await procedures.textContent()).toContain('3 sessions and senders');
    await capture(world, 'skills');

    await procedures.getByRole('button', { name: `Archive ${PROCEDURE}` }).click();
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: `Archived ${PROCEDURE}.` })
          .count(),
      )
      .toBe(1);
    await expect.poll(() => row.textContent()).toContain('archived');
    expect(await procedures.getByRole('button', { name: `Archive ${PROCEDURE}` }).count()).toBe(0);
    expect(await learned()).toEqual([expect.objectContaining({ name: PROCEDURE, state: 'archived' })]);

    // The state filter: none active, the archived one under archived.
    const filter = procedures.getByLabel('State', { exact: true });
    await filter.selectOption('active');
    await expect.poll(() => procedures.getByText('No learned procedures yet', { exact: false }).count()).toBe(1);
    expect(await row.count()).toBe(0);
    await filter.selectOption('archived');
    await expect.poll(() => row.count()).toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it('reloads the skills dir with Reload skills and reports the count', async () => {
    const { page } = world.browser;
    await writeSkill(skillsDir, 'packing', 'Packs a bag for a trip', '# Packing');
    await openSignedIn(world, 'skills');
    const loaded = page.getByRole('region', { name: 'Loaded skills' });
    await expect.poll(() => loaded.getByRole('row').filter({ hasText: 'release-notes' }).count()).toBe(1);
    expect(await loaded.getByRole('row').filter({ hasText: 'packing' }).count()).toBe(0);
    await loaded.getByRole('button', { name: 'Reload skills' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Loaded 2 skill(s).' }).count()).toBe(1);
    await expect.poll(() => loaded.getByRole('row').filter({ hasText: 'Packs a bag for a trip' }).count()).toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it("records the Chat page's feedback on an answer: obs.explain shows the explicit source and the chosen outcome", async () => {
    const { page } = world.browser;
    world.llm.script({ text: 'Paris is the capital of France.' });
    await openSignedIn(world, 'chat');
    await expect
      .poll(() => new URL(page.url()).searchParams.get('session') ?? '')
      .toMatch(/^default:dashboard:dashboard:/);
    const sessionKey = new URL(page.url()).searchParams.get('session') ?? '';
    await page.getByLabel('Message', { exact: true }).fill('What is the capital of France?');
    await page.getByRole('button', { name: 'Send' }).click();
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect.poll(() => log.getByText('Paris is the capital of France.').count(), { timeout: 10_000 }).toBe(1);
    const feedback = page.getByRole('group', { name: 'Feedback on the latest answer' });
    await expect.poll(() => feedback.count()).toBe(1);
    // No source resolved the answer yet.
    await expect
      .poll(async () => (await rpc<IncidentReport>('obs.explain', { sessionKey })).learning, { timeout: 10_000 })
      .toMatchObject({ outcomeResolved: false, sources: [] });

    for (const [label, outcome] of [
      ['Good answer', 'success'],
      ['Wrong answer', 'failure'],
      ['I corrected it', 'corrected'],
    ] as const) {
      const button = feedback.getByRole('button', { name: label });
      await button.click();
      await expect.poll(() => feedback.getByText(`Thanks: recorded as ${outcome}.`).count()).toBe(1);
      expect(await button.getAttribute('aria-pressed')).toBe('true');
      await expect
        .poll(async () => (await rpc<IncidentReport>('obs.explain', { sessionKey })).learning, { timeout: 10_000 })
        .toMatchObject({ outcomeResolved: true, outcome, sources: ['explicit'] });
    }
    await capture(world, 'chat-feedback');
    const first = (await rpc<IncidentReport>('obs.explain', { sessionKey })).traceId;

    // A new answer clears the choice; feedback then goes to the new turn, the earlier one keeps its own.
    world.llm.script({ text: 'Berlin is the capital of Germany.' });
    await page.getByLabel('Message', { exact: true }).fill('And of Germany?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => log.getByText('Berlin is the capital of Germany.').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => feedback.getByText('Thanks:', { exact: false }).count()).toBe(0);
    expect(await feedback.locator('[aria-pressed="true"]').count()).toBe(0);
    await expect
      .poll(async () => (await rpc<IncidentReport>('obs.explain', { sessionKey })).traceId, { timeout: 10_000 })
      .not.toBe(first);
    const second = (await rpc<IncidentReport>('obs.explain', { sessionKey })).traceId;
    await feedback.getByRole('button', { name: 'Good answer' }).click();
    await expect.poll(() => feedback.getByText('Thanks: recorded as success.').count()).toBe(1);
    await expect
      .poll(async () => (await rpc<IncidentReport>('obs.explain', { sessionKey })).learning, { timeout: 10_000 })
      .toMatchObject({ outcome: 'success', sources: ['explicit'] });
    // Per turn, as stored (obs.explain reports the session): the first answer kept "I corrected it".
    expect(storedOutcomes(sessionKey)).toEqual([
      { traceId: first, outcome: 'corrected', sources: '["explicit"]' },
      { traceId: second, outcome: 'success', sources: '["explicit"]' },
    ]);
    expect(world.browser.problems).toEqual([]);
  });

  it('offers no feedback after a failed turn: the answer on screen is not the turn feedback would rate', async () => {
    const { page } = world.browser;
    world.llm.script({ text: 'Rome is the capital of Italy.' });
    await openSignedIn(world, 'chat');
    await expect
      .poll(() => new URL(page.url()).searchParams.get('session') ?? '')
      .toMatch(/^default:dashboard:dashboard:/);
    const sessionKey = new URL(page.url()).searchParams.get('session') ?? '';
    await page.getByLabel('Message', { exact: true }).fill('What is the capital of Italy?');
    await page.getByRole('button', { name: 'Send' }).click();
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect.poll(() => log.getByText('Rome is the capital of Italy.').count(), { timeout: 10_000 }).toBe(1);
    const feedback = page.getByRole('group', { name: 'Feedback on the latest answer' });
    await expect.poll(() => feedback.count()).toBe(1);

    world.llm.script({ status: 500, errorMessage: 'upstream exploded' });
    await page.getByLabel('Message', { exact: true }).fill('And of Spain?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: 'upstream exploded' }).count(), { timeout: 10_000 })
      .toBe(1);
    // The turn is over (Send, not Streaming…) and recorded: session.feedback would rate this failed turn, whose
    // answer is not on screen, not the answer above.
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).count(), { timeout: 10_000 }).toBe(1);
    await expect
      .poll(() => storedOutcomes(sessionKey).map((row) => row.outcome), { timeout: 10_000 })
      .toEqual([null, null]);
    expect(await feedback.count()).toBe(0);
    await capture(world, 'chat-failed-feedback');

    // The next answer is offered again, and rated as its own turn.
    world.llm.script({ text: 'Madrid is the capital of Spain.' });
    await page.getByLabel('Message', { exact: true }).fill('And of Spain, again?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => log.getByText('Madrid is the capital of Spain.').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => feedback.count()).toBe(1);
    await feedback.getByRole('button', { name: 'Good answer' }).click();
    await expect.poll(() => feedback.getByText('Thanks: recorded as success.').count()).toBe(1);
    expect(storedOutcomes(sessionKey).map((row) => row.outcome)).toEqual([null, null, 'success']);
  });
});
