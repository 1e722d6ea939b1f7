// Which events a caller sees on /api/events and /api/activity: an admin all, another token its own sessions' and jobs'.
import { describe, expect, it } from 'vitest';
import { createEventAudience } from '../../../src/http/rest/event-audience.js';

describe('event audience', () => {
  const owners = new Map<string, string>([
    ['default:ann:chat', 'ann'],
    ['default:bob:chat', 'bob'],
  ]);
  let lookups = 0;
  const ownerOf = async (sessionKey: string) => {
    lookups += 1;
    return owners.get(sessionKey);
  };
  const event = (name: string, payload: object) => ({ name, payload });

  it("shows a token its own sessions' events (by sessionKey or a spawn's parentKey) and its jobs', nothing of the gateway", async () => {
    const ann = createEventAudience({ clientId: 'ann', isAdmin: false }, ownerOf);
    expect(await ann.sees(event('message:sent', { sessionKey: 'default:ann:chat' }))).toBe(true);
    expect(await ann.sees(event('message:sent', { sessionKey: 'default:bob:chat' }))).toBe(false);
    expect(
      await ann.sees(
        event('session:sub_agent_spawn_rejected', { parentKey: 'default:ann:chat', reason: 'x', running: 1 }),
      ),
    ).toBe(true);
    expect(await ann.sees(event('session:sub_agent_spawn_queued', { parentKey: 'default:bob:chat', runId: 'r' }))).toBe(
      false,
    );
    expect(await ann.sees(event('scheduler:job_completed', { jobId: 'j', ownerId: 'ann' }))).toBe(true);
    expect(await ann.sees(event('scheduler:job_completed', { jobId: 'j', ownerId: 'bob' }))).toBe(false);
    // A session no token owns a row of (a stateless /v1 turn, a webhook's) and the gateway's own events are the admins'.
    expect(await ann.sees(event('message:sent', { sessionKey: 'default:ann:openai-stateless' }))).toBe(false);
    for (const name of ['audit:event', 'config:patched', 'run:killed', 'provider:degraded', 'skill:executed']) {
      expect(await ann.sees(event(name, { actor: 'ann', agentId: 'default' }))).toBe(false);
    }
    const admin = createEventAudience({ clientId: 'root', isAdmin: true }, ownerOf);
    expect(await admin.sees(event('audit:event', { actor: 'bob' }))).toBe(true);
    expect(await admin.sees(event('message:sent', { sessionKey: 'default:bob:chat' }))).toBe(true);
  });

  it('reads a session owner once, and again after session:created (a key deleted and created anew may change owner)', async () => {
    const ann = createEventAudience({ clientId: 'ann', isAdmin: false }, ownerOf);
    lookups = 0;
    for (let index = 0; index < 3; index += 1)
      expect(await ann.sees(event('message:sent', { sessionKey: 'default:bob:chat' }))).toBe(false);
    expect(lookups).toBe(1);
    owners.set('default:bob:chat', 'ann');
    expect(
      await ann.sees(event('session:created', { sessionKey: 'default:bob:chat', agentId: 'default', kind: 'main' })),
    ).toBe(true);
    expect(await ann.sees(event('message:sent', { sessionKey: 'default:bob:chat' }))).toBe(true);
    expect(lookups).toBe(2);
  });

  it("shows a token its own token budgets' events; tenant, agent, global and other tokens' budgets are the admins'", async () => {
    const ann = createEventAudience({ clientId: 'ann', isAdmin: false }, ownerOf);
    for (const name of ['budget:warning', 'budget:exhausted']) {
      expect(await ann.sees(event(name, { budgetId: 'a', scope: 'token:ann' }))).toBe(true);
      for (const scope of ['token:bob', 'token:ann2', 'tenant:default', 'agent:ann', 'global'])
        expect(await ann.sees(event(name, { budgetId: 'b', scope }))).toBe(false);
    }
    // Only budget events are read by their scope.
    expect(await ann.sees(event('config:patched', { scope: 'token:ann' }))).toBe(false);
  });
});
