// Transcript messages as session.export returns them, and the agents list every page's agent pickers share.
import { getJson } from './api';
import type { ResultOf } from './rpc';

/** A session as session.export answers it. */
export type SessionExport = ResultOf<'session.export'>;
/** One message of a transcript: user, assistant (with its tool calls), tool result or system. */
export type TranscriptMessage = SessionExport['messages'][number];

export interface AgentSummary {
  id: string;
  name: string;
  provider: string | null;
  model: string | null;
  status: string;
}

export async function listAgents(): Promise<AgentSummary[]> {
  return (await getJson<{ agents: AgentSummary[] }>('/api/agents')).agents;
}
