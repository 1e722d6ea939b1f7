// Who may see a bus event on /api/events and /api/activity: an admin token every one, any other token only the
// events about its own sessions, jobs and token budgets.
import type { SessionCaller } from '../../agents/types.js';
import type { FeedEvent } from '../../coordination/index.js';

/** Session owners one stream (or one /api/activity answer) remembers; past it the memory starts over. */
export const AUDIENCE_CACHE_SESSIONS = 1_000;

/**
 * What an event is about, for a caller without admin:
 * - `ownerId` (scheduler:job_*): the job's owner token;
 * - budget:warning and budget:exhausted of a `token:<id>` budget: that token (its tenants' and agents' budgets are
 *   shared with other tokens, so they stay the admins');
 * - `sessionKey`, or `parentKey` of a spawn refused or queued before its session exists: that session's owner;
 * - anything else (audit rows with their actors, run kills, config, providers, models, agents, channels, skills,
 *   metrics, system errors): the gateway as a whole, for admins only.
 */
const TOKEN_SCOPE = 'token:';

function subjectOf({
  name,
  payload,
}: Pick<FeedEvent, 'name' | 'payload'>): { ownerId: string } | { sessionKey: string } | undefined {
  if (name.startsWith('budget:'))
    return 'scope' in payload && typeof payload.scope === 'string' && payload.scope.startsWith(TOKEN_SCOPE)
      ? { ownerId: payload.scope.slice(TOKEN_SCOPE.length) }
      : undefined;
  if ('ownerId' in payload && typeof payload.ownerId === 'string') return { ownerId: payload.ownerId };
  if ('sessionKey' in payload && typeof payload.sessionKey === 'string') return { sessionKey: payload.sessionKey };
  if ('parentKey' in payload && typeof payload.parentKey === 'string') return { sessionKey: payload.parentKey };
  return undefined;
}

export interface EventAudience {
  /** Whether the caller may see this event. Calls for one stream must come in event order (a new session resets its entry). */
  sees(event: Pick<FeedEvent, 'name' | 'payload'>): Promise<boolean>;
}

/**
 * One caller's view. A session's owner is read once and remembered; `session:created` forgets it, since a key
 * deleted and created again may belong to another token. A session without a row (a stateless /v1 turn, a deleted
 * session) has no owner a token could be: its events are the admins'.
 */
export function createEventAudience(
  caller: SessionCaller,
  ownerOf: (sessionKey: string) => Promise<string | null | undefined>,
): EventAudience {
  if (caller.isAdmin) return { sees: async () => true };
  const owners = new Map<string, string | null>();
  async function ownerOfSession(sessionKey: string): Promise<string | null> {
    const known = owners.get(sessionKey);
    if (known !== undefined) return known;
    const owner = (await ownerOf(sessionKey)) ?? null;
    if (owners.size >= AUDIENCE_CACHE_SESSIONS) owners.clear();
    owners.set(sessionKey, owner);
    return owner;
  }
  return {
    async sees(event) {
      const subject = subjectOf(event);
      if (event.name === 'session:created' && subject !== undefined && 'sessionKey' in subject)
        owners.delete(subject.sessionKey);
      if (subject === undefined) return false;
      if ('ownerId' in subject) return subject.ownerId === caller.clientId;
      return (await ownerOfSession(subject.sessionKey)) === caller.clientId;
    },
  };
}
