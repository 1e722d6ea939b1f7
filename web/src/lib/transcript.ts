// Transcript messages as session.export returns them, and the agents list every page's agent pickers share.
import { getJson } from './api';

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type TranscriptMessage =
  | { role: 'system' | 'user'; content: string; timestamp: number }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; timestamp: number }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError: boolean; timestamp: number };

export interface SessionExport {
  sessionKey: string;
  messages: TranscriptMessage[];
  metadata: Record<string, unknown>;
  messageCount: number;
  createdAt: number;
  updatedAt: number;
}

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
