// The `run` of each node type: an agent node is a turn through TurnService in a session of the run's owner (a child
// run of the graph's tree), a tool node one call through the tool registry under the turn hooks, an approval node a
// request in the approvals queue, a map node its sub-node once per item of a rendered array, at most `concurrency` at once.
import type { ToolContext, ToolRegistry } from '../agents/index.js';
import type { ApprovalService } from '../approvals/index.js';
import type { RunControl } from '../runs/index.js';
import type { ParsedSessionKey } from '../sessions/types.js';
import { DEFAULT_TENANT, readSessionKey } from '../sessions/index.js';
import { settleDecision, undoneTaskError, type TurnService } from '../turns/index.js';
import type { TurnHookContext, TurnHooks } from '../turns/types.js';
import { errorText, runAttempts } from './attempts.js';
import { runNodeOfType, type GraphTemplates, type NodeRunContext, type NodeRunners } from './executor.js';
import { GRAPH_LIMITS } from './limits.js';
import { isMcpToolEntry } from './node-types.js';
import type { GraphRunRecord } from './types.js';

/** The tool name an approval node's request carries in admin.approval.pending. */
export const GRAPH_APPROVAL_TOOL = 'graph_approval';

export interface NodeRunnerDeps {
  turns: Pick<TurnService, 'run'>;
  runControl: Pick<RunControl, 'startRun'>;
  tools: Pick<ToolRegistry, 'execute' | 'forTurn'>;
  hooks: Pick<TurnHooks, 'beforeTool'>;
  approvals: Pick<ApprovalService, 'ask'>;
  /** The agent tool nodes and approval requests run as (its approval rules apply to tool nodes). */
  defaultAgentId: () => string | undefined;
  templates: GraphTemplates;
  newId: () => string;
}

/** The run's own session key, `default:<owner>:graph:<runId>`: tool nodes and approvals run in it. */
export function graphSessionKey(run: Pick<GraphRunRecord, 'runId' | 'ownerId'>): ParsedSessionKey {
  const keyParts = { tenantId: DEFAULT_TENANT, userId: run.ownerId, channelId: 'graph', peerId: run.runId };
  return { sessionKey: `${DEFAULT_TENANT}:${run.ownerId}:graph:${run.runId}`, keyParts };
}

/** A rendered template as text: a value that is not a string is its JSON. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** A result that is JSON (an object or array, fenced or not) is that value, anything else the text itself. */
export function outputOf(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const body = fenced?.[1] ?? trimmed;
  if (!body.startsWith('{') && !body.startsWith('[')) return text;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return text;
  }
}

export function createNodeRunners(deps: NodeRunnerDeps): NodeRunners {
  const { templates } = deps;

  function hookContext(ctx: NodeRunContext, agentId: string): TurnHookContext {
    const { run, signal } = ctx;
    const { sessionKey, keyParts } = graphSessionKey(run);
    return {
      agentId,
      sessionKey,
      keyParts,
      traceId: run.runId,
      clientId: run.ownerId,
      ownerId: run.ownerId,
      signal,
      rootRunId: run.runId,
    };
  }

  /**
   * The tool a tool node calls: a built-in one by its name, or the one tool an `mcp:<server>/<tool>` entry names,
   * resolved through the registry as an agent's turn resolves it (named `<server>__<tool>`, as approval rules name it).
   * An unreachable server fails the node with its mcp_unavailable reason.
   */
  async function toolOf(
    entry: string,
  ): Promise<{ name: string; execute: (input: unknown, ctx: ToolContext) => ReturnType<ToolRegistry['execute']> }> {
    if (!isMcpToolEntry(entry))
      return { name: entry, execute: (input, toolCtx) => deps.tools.execute(entry, input, toolCtx) };
    const resolved = await deps.tools.forTurn([entry]);
    const [unavailable] = resolved.unavailable;
    if (unavailable !== undefined) throw new Error(unavailable.reason);
    const [spec] = resolved.specs;
    if (spec === undefined) throw new Error(`${entry} names no tool`);
    return { name: spec.name, execute: (input, toolCtx) => resolved.execute(spec.name, input, toolCtx) };
  }

  function agentIdOf(): string {
    const agentId = deps.defaultAgentId();
    if (agentId === undefined) throw new Error('no agent is configured to run tool and approval nodes as');
    return agentId;
  }

  const runners: NodeRunners = {
    async agent(node, ctx) {
      const { run, signal } = ctx;
      const message = textOf(templates.render(node.message, ctx.scope));
      const key =
        node.sessionKey === undefined
          ? {
              sessionKey: `${DEFAULT_TENANT}:${run.ownerId}:graph:${run.runId}.${ctx.nodeId}`,
              keyParts: {
                tenantId: DEFAULT_TENANT,
                userId: run.ownerId,
                channelId: 'graph',
                peerId: `${run.runId}.${ctx.nodeId}`,
              },
            }
          : readSessionKey(textOf(templates.render(node.sessionKey, ctx.scope)), 'sessionKey');
      // Each node's turn is a child run of the graph's tree: run.kill and lease.revoke of the graph reach it.
      const handle = await deps.runControl.startRun({
        runId: deps.newId(),
        rootRunId: run.runId,
        kind: 'graph',
        agentId: node.agentId,
        sessionKey: key.sessionKey,
        parentKey: graphSessionKey(run).sessionKey,
        task: `graph ${run.name}: node ${ctx.nodeId} (attempt ${ctx.attempt})`,
        requestedBy: run.ownerId,
      });
      let failure: string | undefined = 'the turn did not finish';
      try {
        const result = await deps.turns.run({
          ...key,
          agentId: node.agentId,
          message,
          caller: { clientId: run.ownerId, isAdmin: false },
          rootRunId: run.runId,
          signal: AbortSignal.any([signal, handle.signal]),
        });
        ctx.noteTrace(result.traceId);
        failure = undoneTaskError(result);
        if (failure !== undefined) throw new Error(failure);
        return outputOf(result.response);
      } catch (error) {
        failure = errorText(error);
        throw error;
      } finally {
        await handle.finish({
          status: failure === undefined ? 'completed' : 'failed',
          ...(failure === undefined ? {} : { error: failure }),
        });
      }
    },

    async tool(node, ctx) {
      const agentId = agentIdOf();
      const args = templates.render(node.args, ctx.scope);
      const tool = await toolOf(node.tool);
      const hookCtx = hookContext(ctx, agentId);
      const gate = await deps.hooks.beforeTool(
        { toolCallId: `${ctx.run.runId}.${ctx.nodeId}.${ctx.attempt}`, toolName: tool.name, input: args },
        hookCtx,
      );
      if (gate.action === 'wait') await ctx.waiting();
      const verdict = await settleDecision(
        gate,
        ctx.signal,
        'the graph run stopped while the call waited for a decision',
      );
      if (verdict.action === 'deny') throw new Error(`${tool.name} was denied: ${verdict.reason}`);
      const outcome = await tool.execute(args, {
        agentId,
        sessionKey: hookCtx.sessionKey,
        caller: { clientId: ctx.run.ownerId, isAdmin: false },
        ownerId: ctx.run.ownerId,
        signal: ctx.signal,
      });
      if (!outcome.ok) throw new Error(outcome.content.replace(/^Error: /, ''));
      return outputOf(outcome.content);
    },

    async approval(node, ctx) {
      const { run } = ctx;
      const summary = textOf(templates.render(node.summary, ctx.scope));
      const decision = await deps.approvals.ask(
        {
          toolCallId: `${run.runId}.${ctx.nodeId}.${ctx.attempt}`,
          toolName: GRAPH_APPROVAL_TOOL,
          input: { graph: run.name, runId: run.runId, nodeId: ctx.nodeId, summary },
        },
        hookContext(ctx, agentIdOf()),
      );
      if (decision.action === 'wait') await ctx.waiting();
      const verdict = await settleDecision(decision, ctx.signal, 'the graph run stopped before a decision');
      if (verdict.action === 'deny') throw new Error(`not approved: ${verdict.reason}`);
      return { approved: true };
    },

    async map(node, ctx) {
      const items = templates.render(node.over, ctx.scope);
      if (!Array.isArray(items)) throw new Error(`over did not render to an array (${typeof items})`);
      if (items.length > GRAPH_LIMITS.maxMapItems)
        throw new Error(`over rendered ${items.length} items; at most ${GRAPH_LIMITS.maxMapItems} (maxMapItems)`);
      const outputs: unknown[] = new Array<unknown>(items.length);
      const stop = new AbortController();
      const signal = AbortSignal.any([ctx.signal, stop.signal]);
      let next = 0;
      let failure: string | undefined;
      const worker = async (): Promise<void> => {
        while (next < items.length && failure === undefined && !signal.aborted) {
          const index = next;
          next += 1;
          const sub = { ...node.node, id: `${ctx.nodeId}.${index}`, needs: [] };
          const itemScope = { ...ctx.scope, item: items[index] };
          const outcome = await runAttempts(sub, signal, (attemptSignal) =>
            runNodeOfType(runners, sub.type, sub, { ...ctx, nodeId: sub.id, scope: itemScope, signal: attemptSignal }),
          );
          if (outcome.ok) outputs[index] = outcome.output;
          else {
            failure ??= `item ${index}: ${outcome.error}`;
            stop.abort();
          }
        }
      };
      const workers = Math.min(node.concurrency, GRAPH_LIMITS.maxMapConcurrency, items.length);
      await Promise.all(Array.from({ length: workers }, worker));
      if (failure !== undefined) throw new Error(failure);
      return outputs;
    },
  };
  return runners;
}
