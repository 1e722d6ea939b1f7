// A job's wake gate: a cheap check, without the model, that decides whether a fire wakes the agent.
import type { BusEvent } from '../events/index.js';
import type { SessionCaller } from '../agents/index.js';
import type { JobRecord, WakeGate } from '../store/index.js';

/** Recent bus events an `events` gate reads per fire (the bus keeps a bounded history). */
export const WAKE_GATE_EVENT_SCAN = 500;

/** Tool results that mean "nothing to do": the gate does not wake the model for them. */
const EMPTY_RESULTS = new Set(['', 'null', '[]', '{}', 'false', '""']);

export interface GateTools {
  execute(
    name: string,
    input: unknown,
    ctx: { agentId: string; sessionKey: string; caller: SessionCaller; signal: AbortSignal },
  ): Promise<{ ok: boolean; content: string }>;
}

export interface GateDeps {
  recentEvents(limit: number): readonly BusEvent[];
  tools: GateTools;
}

export interface GateVerdict {
  wake: boolean;
  /** The gate could not decide (its tool failed) and woke the model anyway. */
  failedOpen: boolean;
  /** Tool calls the gate itself made. */
  toolCalls: number;
}

export interface GateInput {
  job: JobRecord;
  agentId: string;
  sessionKey: string;
  caller: SessionCaller;
  signal: AbortSignal;
}

function eventsSince(deps: GateDeps, gate: Extract<WakeGate, { kind: 'events' }>, sinceMs: number): number {
  const names = new Set(gate.events);
  return deps.recentEvents(WAKE_GATE_EVENT_SCAN).filter((event) => event.ts > sinceMs && names.has(event.name)).length;
}

export async function evaluateWakeGate(deps: GateDeps, gate: WakeGate, input: GateInput): Promise<GateVerdict> {
  if (gate.kind === 'events') {
    const sinceMs = input.job.lastRunAtMs ?? input.job.createdAt;
    return { wake: eventsSince(deps, gate, sinceMs) >= gate.minCount, failedOpen: false, toolCalls: 0 };
  }
  const outcome = await deps.tools.execute(gate.tool, gate.args, {
    agentId: input.agentId,
    sessionKey: input.sessionKey,
    caller: input.caller,
    signal: input.signal,
  });
  if (!outcome.ok) return { wake: true, failedOpen: true, toolCalls: 1 };
  return { wake: !EMPTY_RESULTS.has(outcome.content.trim()), failedOpen: false, toolCalls: 1 };
}
