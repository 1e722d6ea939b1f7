// The agent layer's seams: agent definitions, the agent registry, and who a turn or tool call runs for.
import type { AgentConfig } from '../config/index.js';

/** Who asks for a turn or a transcript: the token id, and whether that token grants the admin scope. */
export interface SessionCaller {
  clientId: string;
  isAdmin: boolean;
}

export type AgentStatus = 'active' | 'suspended';

export interface AgentDefinition {
  id: string;
  config: AgentConfig;
  status: AgentStatus;
}

export interface AgentRegistry {
  get(agentId: string): AgentDefinition | undefined;
  list(): AgentDefinition[];
  /** The agent used when a request names none: `default`, else the first configured. */
  defaultAgentId(): string | undefined;
}
