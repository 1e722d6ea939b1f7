// The tools the gateway offers MCP clients: `ask_<agentId>` per active agent plus mcp.server.exposeTools, and one call.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { AgentRegistry, ToolRegistry } from '../../agents/index.js';
import { publicMessage, reportInternal, toGatewayError } from '../../errors.js';
import type { AuditInput } from '../../obs/index.js';
import type { Caller } from '../../server/types.js';
import { makeSessionKey, readSessionKey, sessionCallerOf } from '../../sessions/index.js';
import { undoneTaskError, type TurnRunner } from '../../turns/index.js';
import { mcpSdk } from '../mcp-sdk-loader.js';

/** The channel of every session an MCP client's turn runs in, so obs.explain and the channel list name it. */
const MCP_CHANNEL = 'mcp';

const ASK_PREFIX = 'ask_';

/** MCP tool names (2025-11-25): 1 to 128 of letters, digits, underscore, hyphen and dot. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const askInput = z.strictObject({
  message: z.string().min(1).max(1_000_000),
  sessionKey: z.string().min(1).max(1_100).optional(),
});

const ASK_INPUT_SCHEMA: Tool['inputSchema'] = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, maxLength: 1_000_000, description: 'What to ask the agent.' },
    sessionKey: {
      type: 'string',
      description:
        'tenantId:userId:channelId[:peerId] of a conversation of yours to continue; absent: your ongoing one with this agent.',
    },
  },
  required: ['message'],
  additionalProperties: false,
};

const ASK_OUTPUT_SCHEMA: Tool['outputSchema'] = {
  type: 'object',
  properties: {
    response: { type: 'string' },
    sessionKey: { type: 'string' },
    finishReason: { type: 'string' },
  },
  required: ['response', 'sessionKey', 'finishReason'],
};

export interface McpToolsDeps {
  agents: Pick<AgentRegistry, 'list' | 'defaultAgentId'>;
  tools: Pick<ToolRegistry, 'has' | 'specs' | 'execute'>;
  turns: TurnRunner;
  audit: { record(input: AuditInput): void };
  /** mcp.server.exposeTools, read when the list is rebuilt. */
  exposeTools: () => readonly string[];
  now: () => number;
  log: Logger;
}

export interface McpTools {
  /** The tools/list answer, rebuilt only by refresh(). */
  list(): Tool[];
  /** Rebuilds the list from the agents and the config; true when it changed (clients are then told list_changed). */
  refresh(): boolean;
  /** Runs one tools/call for `caller`; an unknown name is a protocol error, every other failure an isError result. */
  call(name: string, args: unknown, caller: Caller, signal: AbortSignal): Promise<CallToolResult>;
}

type Target = { kind: 'agent'; agentId: string } | { kind: 'tool'; toolName: string };

interface Outcome {
  result: CallToolResult;
  outcome: string;
  agentId?: string;
  traceId?: string;
  refs: Record<string, unknown>;
}

const failed = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
}

export function createMcpTools({ agents, tools, turns, audit, exposeTools, now, log }: McpToolsDeps): McpTools {
  let listed: Tool[] = [];
  let fingerprint = '';
  let targets = new Map<string, Target>();

  /** Tools some agent's requireApproval names: run over MCP they would skip the operator, so they are never offered. */
  function gatedTools(): Set<string> {
    const gated = new Set<string>();
    for (const agent of agents.list())
      for (const rule of agent.config.requireApproval) gated.add(typeof rule === 'string' ? rule : rule.tool);
    return gated;
  }

  function build(): { list: Tool[]; byName: Map<string, Target> } {
    const list: Tool[] = [];
    const byName = new Map<string, Target>();
    const gated = gatedTools();
    for (const agent of agents.list()) {
      const name = `${ASK_PREFIX}${agent.id}`;
      if (agent.status !== 'active' || !TOOL_NAME.test(name)) continue;
      byName.set(name, { kind: 'agent', agentId: agent.id });
      list.push({
        name,
        title: agent.config.name,
        description:
          `Ask the agent "${agent.config.name}" (${agent.id}): runs one turn and answers its reply. ` +
          'Pass the returned sessionKey to continue that conversation.',
        inputSchema: ASK_INPUT_SCHEMA,
        outputSchema: ASK_OUTPUT_SCHEMA,
      });
    }
    for (const toolName of exposeTools()) {
      if (gated.has(toolName)) {
        log.warn({ tool: toolName }, 'mcp.server.exposeTools names a tool an approval rule gates; not offered');
        continue;
      }
      const spec = tools.has(toolName) && !byName.has(toolName) ? tools.specs([toolName])[0] : undefined;
      if (spec === undefined || spec.inputSchema.type !== 'object') {
        log.warn({ tool: toolName }, 'mcp.server.exposeTools names no gateway tool with an object input; not offered');
        continue;
      }
      byName.set(toolName, { kind: 'tool', toolName });
      list.push({
        name: toolName,
        description: spec.description,
        inputSchema: { ...spec.inputSchema, type: 'object' },
      });
    }
    return { list, byName };
  }

  function refresh(): boolean {
    const { list, byName } = build();
    const next = JSON.stringify(list);
    const changed = next !== fingerprint;
    listed = list;
    targets = byName;
    fingerprint = next;
    return changed;
  }

  async function askAgent(agentId: string, args: unknown, caller: Caller, signal: AbortSignal): Promise<Outcome> {
    const parsed = askInput.safeParse(args ?? {});
    if (!parsed.success)
      return { result: failed(`Invalid arguments: ${issuesOf(parsed.error)}`), outcome: 'invalid', agentId, refs: {} };
    const { message, sessionKey } = parsed.data;
    const key =
      sessionKey === undefined
        ? makeSessionKey({ userId: caller.clientId, channelId: MCP_CHANNEL, peerId: agentId })
        : readSessionKey(sessionKey, 'sessionKey');
    const result = await turns.run({ ...key, agentId, message, caller: sessionCallerOf(caller), signal });
    const refs = { sessionKey: result.sessionKey, finishReason: result.finishReason };
    const undone = undoneTaskError(result);
    if (undone !== undefined)
      return { result: failed(undone), outcome: 'error', agentId, traceId: result.traceId, refs };
    return {
      result: {
        content: [{ type: 'text', text: result.response }],
        structuredContent: {
          response: result.response,
          sessionKey: result.sessionKey,
          finishReason: result.finishReason,
        },
      },
      outcome: 'ok',
      agentId,
      traceId: result.traceId,
      refs,
    };
  }

  async function runTool(toolName: string, args: unknown, caller: Caller, signal: AbortSignal): Promise<Outcome> {
    const { sessionKey } = makeSessionKey({ userId: caller.clientId, channelId: MCP_CHANNEL });
    const called = await tools.execute(toolName, args ?? {}, {
      agentId: agents.defaultAgentId() ?? MCP_CHANNEL,
      sessionKey,
      caller: sessionCallerOf(caller),
      ownerId: caller.clientId,
      signal,
    });
    return {
      result: called.ok ? { content: [{ type: 'text', text: called.content }] } : failed(called.content),
      outcome: called.ok ? 'ok' : 'error',
      refs: called.errorKind === undefined ? {} : { errorKind: called.errorKind },
    };
  }

  async function run(target: Target, args: unknown, caller: Caller, signal: AbortSignal): Promise<Outcome> {
    try {
      return target.kind === 'agent'
        ? await askAgent(target.agentId, args, caller, signal)
        : await runTool(target.toolName, args, caller, signal);
    } catch (error) {
      const mapped = toGatewayError(error);
      if (mapped.kind === 'internal') {
        log.error({ err: error }, 'MCP tool call failed');
        reportInternal(log, error, null);
      }
      return {
        result: failed(`${mapped.kind}: ${publicMessage(mapped)}`),
        outcome: mapped.kind === 'forbidden' ? 'denied' : 'error',
        ...(target.kind === 'agent' ? { agentId: target.agentId } : {}),
        refs: { errorKind: mapped.kind },
      };
    }
  }

  function record(name: string, caller: Caller, startedAt: number, done: Omit<Outcome, 'result'>): void {
    audit.record({
      kind: 'mcp.tool_call',
      classification: 'mcp',
      action: name,
      actor: caller.clientId,
      outcome: done.outcome,
      severity: done.outcome === 'ok' ? 'info' : 'warning',
      ...(done.agentId === undefined ? {} : { agentId: done.agentId }),
      ...(done.traceId === undefined ? {} : { traceId: done.traceId }),
      refs: { transport: 'mcp', durationMs: now() - startedAt, ...done.refs },
    });
  }

  return {
    list: () => listed,
    refresh,
    async call(name, args, caller, signal) {
      const startedAt = now();
      const target = targets.get(name);
      if (target === undefined) {
        record(name, caller, startedAt, { outcome: 'unknown_tool', refs: {} });
        const { McpError, ErrorCode } = mcpSdk();
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      const { result, ...done } = await run(target, args, caller, signal);
      record(name, caller, startedAt, done);
      return result;
    },
  };
}
