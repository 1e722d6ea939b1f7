// One orchestrate call: the caps, the run (kind orchestrate) and its child lease, the sandboxed script with its tool
// bridge, the run's outcome and evidence, and what the model gets back (tool results that stayed in the script never do).
import type { Logger } from 'pino';
import type { AgentRegistry, ToolContext, ToolRegistry } from '../agents/index.js';
import type { OrchestrateConfig } from '../config/index.js';
import {
  agentNotFound,
  orchestrateAgentBusy,
  orchestrateOutsideTurn,
  orchestrateSessionRunsExceeded,
} from '../errors.js';
import type { HealthSignalRecorder, Recorder } from '../obs/index.js';
import type { RunControl } from '../runs/index.js';
import type { TurnHooks } from '../turns/types.js';
import { grantCapabilities, type CapabilityLease, type LeaseState } from './lease.js';
import { emptyTally, recordRun, savingsOf, type AuditDecision, type RunFailureClass } from './run-evidence.js';
import { createScriptTools, type ScriptTools } from './script-tools.js';
import {
  SCRIPT_MAX_CHARS,
  SCRIPT_STDOUT_MAX_BYTES,
  type ScriptRunOptions,
  type ScriptRunResult,
} from './sandbox/index.js';

/** Characters a script may have (the tool's input is refused past it); never more than the sandbox takes. */
export const MAX_SCRIPT_CHARS = Math.min(100_000, SCRIPT_MAX_CHARS);
/** Names the `capabilities` param may list. */
export const MAX_CAPABILITIES = 64;
/** Sessions whose run counts are kept; the least recently used are forgotten past it. */
export const MAX_TRACKED_SESSIONS = 10_000;

export interface OrchestrateInput {
  script: string;
  capabilities?: string[] | undefined;
  timeoutMs?: number | undefined;
}

/** What the model gets back. */
export interface OrchestrateOutput {
  runId: string;
  exitCode: number;
  result?: unknown;
  stdout: string;
  failureClass?: RunFailureClass;
  error?: string;
  toolCalls: { tool: string; decision: AuditDecision; count: number }[];
}

export interface OrchestrateDeps {
  config: () => OrchestrateConfig;
  agents: Pick<AgentRegistry, 'get'>;
  tools: Pick<ToolRegistry, 'forTurn'>;
  hooks: Pick<TurnHooks, 'beforeTool'>;
  runControl: Pick<RunControl, 'startRun' | 'tripDenialBreaker' | 'onStop'>;
  recorder: Recorder;
  signals?: HealthSignalRecorder;
  /** The sandbox's runScript (never rejects). */
  runScript: (options: ScriptRunOptions) => Promise<ScriptRunResult>;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface OrchestrateService {
  run(input: OrchestrateInput, ctx: ToolContext): Promise<OrchestrateOutput>;
  /** Stops following run control (module stop). */
  close(): void;
}

interface ActiveRun {
  rootRunId: string;
  tools: ScriptTools;
}

export function createOrchestrateService(deps: OrchestrateDeps): OrchestrateService {
  const { now, log } = deps;
  const active = new Map<string, ActiveRun>();
  const runsPerSession = new Map<string, number>();
  const inFlightPerAgent = new Map<string, number>();
  /** Per agent tools list (by identity): the list without orchestrate, so the registry's per-list cache holds. */
  const scriptToolNames = new WeakMap<readonly string[], readonly string[]>();
  // A revoke (cooperative) is the lease's to apply; a kill aborts the run's signal, which kills the child.
  const unsubscribe = deps.runControl.onStop((rootRunId, reason) => {
    if (reason !== 'revoked') return;
    for (const run of active.values()) if (run.rootRunId === rootRunId) run.tools.revoke();
  });

  function admit(sessionKey: string, agentId: string, config: OrchestrateConfig): void {
    const started = runsPerSession.get(sessionKey) ?? 0;
    if (started >= config.maxRunsPerSession) throw orchestrateSessionRunsExceeded(config.maxRunsPerSession);
    const inFlight = inFlightPerAgent.get(agentId) ?? 0;
    if (inFlight >= config.maxRunsInFlightPerAgent) throw orchestrateAgentBusy(agentId, config.maxRunsInFlightPerAgent);
    runsPerSession.delete(sessionKey);
    runsPerSession.set(sessionKey, started + 1);
    if (runsPerSession.size > MAX_TRACKED_SESSIONS) {
      const oldest = runsPerSession.keys().next();
      if (oldest.done !== true) runsPerSession.delete(oldest.value);
    }
    inFlightPerAgent.set(agentId, inFlight + 1);
  }

  function release(agentId: string): void {
    const left = (inFlightPerAgent.get(agentId) ?? 1) - 1;
    if (left <= 0) inFlightPerAgent.delete(agentId);
    else inFlightPerAgent.set(agentId, left);
  }

  function namesOf(tools: readonly string[]): readonly string[] {
    let names = scriptToolNames.get(tools);
    if (names === undefined) {
      names = tools.filter((tool) => tool !== 'orchestrate');
      scriptToolNames.set(tools, names);
    }
    return names;
  }

  async function runAdmitted(input: OrchestrateInput, ctx: ToolContext, config: OrchestrateConfig) {
    const { turn } = ctx;
    if (turn === undefined) throw orchestrateOutsideTurn();
    const agent = deps.agents.get(ctx.agentId);
    if (agent === undefined) throw agentNotFound(ctx.agentId);
    const listed = deps.tools.forTurn(namesOf(agent.config.tools));
    const turnTools = 'then' in listed ? await listed : listed;
    const capabilities = grantCapabilities(
      turnTools.specs.map((spec) => spec.name),
      input.capabilities,
    );
    const timeoutMs = Math.min(input.timeoutMs ?? config.defaultTimeoutMs, config.maxTimeoutMs);
    const runId = deps.newId();
    const rootRunId = turn.rootRunId ?? runId;
    const lease: CapabilityLease | undefined =
      capabilities.length === 0
        ? undefined
        : {
            leaseId: deps.newId(),
            runId,
            parentRunId: turn.rootRunId ?? null,
            capabilities,
            expiresAt: now() + timeoutMs,
            maxCalls: config.maxToolCallsPerRun,
          };
    const handle = await deps.runControl.startRun({
      runId,
      rootRunId,
      kind: 'orchestrate',
      agentId: ctx.agentId,
      sessionKey: ctx.sessionKey,
      parentKey: ctx.sessionKey,
      task: `orchestrate script (${input.script.length} characters; ${capabilities.length} capabilities leased)`,
      requestedBy: ctx.caller.clientId,
      ...(lease === undefined ? {} : { leaseId: lease.leaseId }),
    });
    const signal = AbortSignal.any([ctx.signal, handle.signal]);
    const state: LeaseState | undefined = lease === undefined ? undefined : { lease, calls: 0, revoked: false };
    const tally = emptyTally();
    const evidence = {
      recorder: deps.recorder,
      ...(deps.signals === undefined ? {} : { signals: deps.signals }),
      now,
      sessionKey: ctx.sessionKey,
      traceId: turn.traceId,
      agentId: ctx.agentId,
      rootRunId,
      runId,
      ...(lease === undefined ? {} : { leaseId: lease.leaseId }),
    };
    const tools = createScriptTools({
      lease: state,
      tools: turnTools,
      hooks: deps.hooks,
      hookCtx: {
        agentId: ctx.agentId,
        sessionKey: ctx.sessionKey,
        keyParts: turn.keyParts,
        traceId: turn.traceId,
        clientId: ctx.caller.clientId,
        ownerId: ctx.ownerId,
        signal,
        rootRunId,
      },
      toolCtx: { ...ctx, signal, turn: { ...turn, rootRunId } },
      toolLimits: turn.toolLimits,
      evidence,
      tally,
      denialBreaker: config.denialBreaker,
      onBreaker: (consecutiveDenials) => {
        deps.runControl
          .tripDenialBreaker(rootRunId, { agentId: ctx.agentId, consecutiveDenials })
          .catch((error: unknown) => log.warn({ err: error, runId }, 'could not trip the denial breaker'));
      },
      now,
    });
    active.set(runId, { rootRunId, tools });
    const startedAt = now();
    let exitCode = -1;
    try {
      const ran = await deps.runScript({
        script: input.script,
        limits: {
          timeoutMs,
          memoryBytes: config.memoryBytes,
          stdoutBytes: Math.min(config.stdoutBytes, SCRIPT_STDOUT_MAX_BYTES),
          maxToolCalls: config.maxToolCallsPerRun,
        },
        callTool: (tool, args, call) => tools.callTool(tool, args, call),
        signal,
      });
      exitCode = ran.exitCode;
      const failureClass: RunFailureClass | undefined =
        ran.exitCode === 0 ? undefined : tools.attemptedWithoutLease ? 'lease_absent' : ran.failureClass;
      const output: OrchestrateOutput = {
        runId,
        exitCode: ran.exitCode,
        ...(ran.result === undefined ? {} : { result: ran.result }),
        stdout: ran.stdout,
        ...(failureClass === undefined ? {} : { failureClass }),
        ...(ran.error === undefined ? {} : { error: ran.error }),
        toolCalls: [...tally.decisions.values()],
      };
      const savings = savingsOf(tally, JSON.stringify(output).length);
      recordRun(evidence, tally, {
        exitCode: ran.exitCode,
        durationMs: ran.durationMs,
        ...(failureClass === undefined ? {} : { failureClass }),
        savings,
      });
      return output;
    } finally {
      active.delete(runId);
      await handle
        .finish({
          status: exitCode === 0 ? 'completed' : 'failed',
          ...(exitCode === 0 ? {} : { error: `The script ended with exit code ${exitCode}` }),
        })
        .catch((error: unknown) => log.warn({ err: error, runId }, 'could not record the orchestrate run'));
      log.debug({ runId, exitCode, durationMs: now() - startedAt }, 'orchestrate run ended');
    }
  }

  return {
    async run(input, ctx) {
      const config = deps.config();
      admit(ctx.sessionKey, ctx.agentId, config);
      try {
        return await runAdmitted(input, ctx, config);
      } finally {
        release(ctx.agentId);
      }
    },
    close: () => {
      unsubscribe();
    },
  };
}
