// Errors of orchestrate scripts (src/orchestrate): refused runs and unknown leases.
import { GatewayError, notFound } from './gateway-error.js';

/** A session that already started orchestrate.maxRunsPerSession runs: the model sees the refusal as a tool error. */
export const orchestrateSessionRunsExceeded = (maxRuns: number) =>
  new GatewayError(
    'rate_limited',
    `This session already ran ${maxRuns} orchestrate scripts (orchestrate.maxRunsPerSession)`,
    { maxRuns },
  );

/** An agent with orchestrate.maxRunsInFlightPerAgent scripts running: the model sees the refusal as a tool error. */
export const orchestrateAgentBusy = (agentId: string, maxInFlight: number) =>
  new GatewayError(
    'rate_limited',
    `Agent '${agentId}' already runs ${maxInFlight} orchestrate scripts (orchestrate.maxRunsInFlightPerAgent); wait for one to end`,
    { maxInFlight },
  );

/** orchestrate called outside an agent turn (it needs the turn's hooks and evidence). */
export const orchestrateOutsideTurn = () => new GatewayError('conflict', 'orchestrate runs only inside an agent turn');

/** lease.revoke of a lease no live run holds (its run ended, or it never existed). */
export const leaseNotFound = (leaseId: string) => notFound(`No live run holds lease ${leaseId}`, { param: 'leaseId' });
