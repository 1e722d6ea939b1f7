// Capability leases: what one orchestrate run may call, and the lease's decision on each call the script makes.

/** A run's child lease: the agent's tools it may call, until when, and how many calls in all. */
export interface CapabilityLease {
  leaseId: string;
  runId: string;
  /** The run tree the script's turn belongs to; null for a plain turn (the run is then its own root). */
  parentRunId: string | null;
  capabilities: readonly string[];
  /** Epoch ms after which every call is denied (`expired`). */
  expiresAt: number;
  maxCalls: number;
}

/** Why a call was denied: the lease's own reasons, a run without a lease, or an operator's (or rule's) denial. */
export type DenyReason = 'not_leased' | 'revoked' | 'expired' | 'over_max_calls' | 'lease_absent' | 'approval_denied';

export type LeaseDecision = { decision: 'allow' } | { decision: 'deny'; reason: DenyReason };

/** A lease in use: the calls it let through and whether it was revoked. */
export interface LeaseState {
  readonly lease: CapabilityLease;
  calls: number;
  revoked: boolean;
}

/**
 * The capabilities of a run: the agent's tools (orchestrate itself never), narrowed to `requested` when given. A
 * requested name the agent does not have is not granted.
 */
export function grantCapabilities(agentTools: readonly string[], requested?: readonly string[]): string[] {
  const own = agentTools.filter((tool) => tool !== 'orchestrate');
  if (requested === undefined) return [...new Set(own)];
  const wanted = new Set(requested);
  return [...new Set(own.filter((tool) => wanted.has(tool)))];
}

/** Decides one call against the lease; an allowed call counts against maxCalls. */
export function decide(state: LeaseState, tool: string, now: number): LeaseDecision {
  const { lease } = state;
  if (state.revoked) return { decision: 'deny', reason: 'revoked' };
  if (now >= lease.expiresAt) return { decision: 'deny', reason: 'expired' };
  if (!lease.capabilities.includes(tool)) return { decision: 'deny', reason: 'not_leased' };
  if (state.calls >= lease.maxCalls) return { decision: 'deny', reason: 'over_max_calls' };
  state.calls += 1;
  return { decision: 'allow' };
}
