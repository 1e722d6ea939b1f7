// Which agent a turn on a session key uses when the caller may name none: the named one, else the session's, else the default.
import type { AgentRegistry } from '../agents/index.js';
import { notFound } from '../errors.js';
import type { SessionRecord } from '../store/index.js';

/** Throws `not_found` (param agentId) for a named agent that does not exist. */
export function sessionAgentId(
  agents: AgentRegistry | undefined,
  agentId: string | undefined,
  session: Pick<SessionRecord, 'agentId'> | undefined,
): string {
  if (agentId !== undefined) {
    if (agents !== undefined && agents.get(agentId) === undefined)
      throw notFound(`Unknown agent: ${agentId}`, { param: 'agentId' });
    return agentId;
  }
  return session?.agentId ?? agents?.defaultAgentId() ?? 'default';
}
