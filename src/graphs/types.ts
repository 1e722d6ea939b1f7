// Execution graphs: the shapes shared by definitions, templates, the executor and the store.

export const GRAPH_NODE_TYPES = ['agent', 'tool', 'approval', 'map'] as const;
export type GraphNodeType = (typeof GRAPH_NODE_TYPES)[number];

/** Fields every node has; `needs` lists the node ids that must finish first, `when` a condition that skips the node when false. */
export interface GraphNodeBase {
  id: string;
  type: GraphNodeType;
  needs: string[];
  when?: string;
  /** Further attempts after a failed one (0: run once). */
  retries: number;
  /** Per attempt, in milliseconds. */
  timeoutMs?: number;
}

/** Runs a turn of `agentId` with the rendered `message`. */
export interface AgentNode extends GraphNodeBase {
  type: 'agent';
  agentId: string;
  message: string;
  sessionKey?: string;
}

/** Calls one tool; `args` is a template tree (strings inside it are rendered). */
export interface ToolNode extends GraphNodeBase {
  type: 'tool';
  tool: string;
  args: unknown;
}

/** Waits for an operator through the approvals queue; `summary` is a template. */
export interface ApprovalNode extends GraphNodeBase {
  type: 'approval';
  summary: string;
}

/** Renders `over` to an array and runs `node` once per item (`{{item}}`), at most `concurrency` at a time. */
export interface MapNode extends GraphNodeBase {
  type: 'map';
  over: string;
  concurrency: number;
  node: MapSubNode;
}

/** The node a map runs per item: an agent or tool node without its own id and needs. */
export type MapSubNode = Omit<AgentNode, 'id' | 'needs'> | Omit<ToolNode, 'id' | 'needs'>;

export type GraphNode = AgentNode | ToolNode | ApprovalNode | MapNode;

export const GRAPH_VAR_TYPES = ['string', 'number', 'boolean', 'array', 'object'] as const;
export type GraphVarType = (typeof GRAPH_VAR_TYPES)[number];

export interface GraphVarSpec {
  type: GraphVarType;
  default?: unknown;
}

export interface GraphDefinition {
  name: string;
  description?: string;
  vars: Record<string, GraphVarSpec>;
  nodes: GraphNode[];
  /** A template rendered when every node has finished: the run's output. */
  output?: string;
}

/** One reason a definition was refused; `path` like "nodes[2].needs[0]". */
export interface DefinitionIssue {
  path: string;
  message: string;
}

/** What a definition is checked against at define time. */
export interface DefinitionContext {
  hasAgent(id: string): boolean;
  hasTool(name: string): boolean;
  /** Why a name hasAgent/hasTool refuses is out of reach, for a context narrower than what exists (a model's own). */
  outOfReach?(kind: 'agent' | 'tool', name: string): string;
}

export type DefinitionResult = { ok: true; definition: GraphDefinition } | { ok: false; issues: DefinitionIssue[] };

/** What templates and conditions read: `{{vars.x}}`, `{{nodes.<id>.output}}`, and `{{item}}` inside a map. */
export interface TemplateScope {
  vars: Record<string, unknown>;
  nodes: Record<string, { output: unknown }>;
  item?: unknown;
}

// Runs
export const GRAPH_RUN_STATES = ['running', 'completed', 'failed', 'cancelled', 'orphaned'] as const;
export type GraphRunState = (typeof GRAPH_RUN_STATES)[number];

export const GRAPH_NODE_STATES = ['pending', 'running', 'completed', 'failed', 'skipped', 'waiting'] as const;
export type GraphNodeState = (typeof GRAPH_NODE_STATES)[number];

export interface StoredGraph {
  name: string;
  definition: GraphDefinition;
  /** The token id that defined it. */
  createdBy: string;
  createdAt: number;
  updatedAt: number;
}

export interface GraphRunRecord {
  runId: string;
  /** The graph's name. */
  name: string;
  /** The token id that started the run. */
  ownerId: string;
  state: GraphRunState;
  vars: Record<string, unknown>;
  output?: unknown;
  error?: string;
  /** The run whose completed nodes this run took over (graph.run resumeFrom). */
  resumedFrom?: string;
  createdAt: number;
  updatedAt: number;
}

export interface GraphNodeRecord {
  runId: string;
  nodeId: string;
  state: GraphNodeState;
  attempts: number;
  startedAt?: number;
  endedAt?: number;
  output?: unknown;
  error?: string;
}
