// The node types of a graph as data: one entry per type with its strict schema and its capabilities as fields
// (which fields are templates, which name an agent or a tool, which holds a map's per-item node). Code reads these
// fields and never switches on a type name elsewhere; the executor adds how each type runs.
import { z } from 'zod';
import { GRAPH_LIMITS } from './limits.js';
import type { GraphNodeType } from './types.js';

/** Node ids and var names are read in paths (`nodes.<id>.output`, `vars.<name>`), so they are path names. */
const PATH_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const PATH_NAME_RULE = 'letters, digits, _ and -, starting with a letter or _';

/** Names a path may not read; refused as ids and var names too. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Characters of a node id or var name. */
export const MAX_PATH_NAME_CHARS = 64;

export const pathNameSchema = z
  .string()
  .min(1)
  .max(MAX_PATH_NAME_CHARS)
  .regex(PATH_NAME, PATH_NAME_RULE)
  .refine((name) => !RESERVED_NAMES.has(name), 'reserved name');

/** A tool node's `mcp:<server>/<tool>` entry: exactly one tool of one MCP server (an agent-style source entry). */
const MCP_TOOL_ENTRY = /^mcp:[^/]+\/[^/]+$/;

/** Whether a tool node's `tool` names one MCP tool (resolved through the tool registry's `mcp:` source). */
export const isMcpToolEntry = (tool: string): boolean => tool.startsWith('mcp:');

/** Whether an `mcp:` entry names exactly one tool: a whole server (`mcp:<server>`) is no tool node's tool. */
export const isSingleMcpTool = (tool: string): boolean => MCP_TOOL_ENTRY.test(tool);

/** Map items run at most this many at a time when a map does not say. */
export const DEFAULT_MAP_CONCURRENCY = 4;

const template = z.string().min(1).max(GRAPH_LIMITS.maxTemplateChars);

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fields of every node and of a map's per-item node. */
const common = {
  when: z.string().min(1).max(GRAPH_LIMITS.maxExpressionChars).optional(),
  retries: z.number().int().min(0).max(GRAPH_LIMITS.maxRetries).default(0),
  timeoutMs: z.number().int().min(1).max(GRAPH_LIMITS.maxNodeTimeoutMs).optional(),
};

/** Fields of a node placed in the graph (a map's per-item node has neither). */
const placed = {
  id: pathNameSchema,
  needs: z.array(pathNameSchema).max(GRAPH_LIMITS.maxNodes).default([]),
};

const agentFields = {
  type: z.literal('agent'),
  agentId: z.string().min(1).max(128),
  message: template,
  sessionKey: z.string().min(1).max(256).optional(),
};

const toolFields = {
  type: z.literal('tool'),
  // A built-in tool's name, or `mcp:<server>/<tool>`.
  tool: z.string().min(1).max(256),
  // A template tree; kept as given (zod would copy it), so it is checked as data by the definition.
  args: z.unknown().refine(isObject, 'args is an object (a template tree)'),
};

const agentSubNode = z.strictObject({ ...common, ...agentFields });
const toolSubNode = z.strictObject({ ...common, ...toolFields });

export const agentNodeSchema = z.strictObject({ ...placed, ...common, ...agentFields });
export const toolNodeSchema = z.strictObject({ ...placed, ...common, ...toolFields });
export const approvalNodeSchema = z.strictObject({
  ...placed,
  ...common,
  type: z.literal('approval'),
  summary: template,
});
export const mapNodeSchema = z.strictObject({
  ...placed,
  ...common,
  type: z.literal('map'),
  over: template,
  concurrency: z.number().int().min(1).max(GRAPH_LIMITS.maxMapConcurrency).default(DEFAULT_MAP_CONCURRENCY),
  node: z.discriminatedUnion('type', [agentSubNode, toolSubNode]),
});

/** What the definition check reads of a node type; the executor adds its own fields (how the type runs). */
export interface NodeTypeEntry {
  /** The strict schema of a node of this type placed in a graph. */
  schema: z.ZodType;
  /** Fields holding templates, rendered when the node runs (with `item` in scope inside a map). */
  templateFields: readonly string[];
  /** The field naming an agent that must exist. */
  agentField?: string;
  /** The field naming a tool that must exist. */
  toolField?: string;
  /** The field holding the node run once per item (an agent or tool node); its templates may read `item`. */
  subNodeField?: string;
}

export const NODE_TYPES = {
  agent: { schema: agentNodeSchema, templateFields: ['message'], agentField: 'agentId' },
  tool: { schema: toolNodeSchema, templateFields: ['args'], toolField: 'tool' },
  approval: { schema: approvalNodeSchema, templateFields: ['summary'] },
  map: { schema: mapNodeSchema, templateFields: ['over'], subNodeField: 'node' },
} satisfies Record<GraphNodeType, NodeTypeEntry>;

/** The entry of a type name read from data (a sub-node's `type`); undefined for a name that is no type. */
export function nodeTypeOf(type: unknown): NodeTypeEntry | undefined {
  return typeof type === 'string' && Object.hasOwn(NODE_TYPES, type)
    ? Object.entries(NODE_TYPES).find(([name]) => name === type)?.[1]
    : undefined;
}

export const graphNodeSchema = z.discriminatedUnion('type', [
  NODE_TYPES.agent.schema,
  NODE_TYPES.tool.schema,
  NODE_TYPES.approval.schema,
  NODE_TYPES.map.schema,
]);
