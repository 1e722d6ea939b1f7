// Errors of graph runs (src/graphs executor and methods): another token's run, run caps, runs that cannot resume.
import { GatewayError } from './gateway-error.js';

/** graph.status, graph.cancel or a resumeFrom naming a run another token started (admins reach every run). */
export const graphRunForbidden = (runId: string, param = 'runId') =>
  new GatewayError('forbidden', `Graph run ${runId} belongs to another token`, { param });

/** A graph.run past GRAPH_LIMITS.maxRunsPerToken or maxRunsPerGraph runs running at once. */
export const graphRunsExceeded = (limit: 'maxRunsPerToken' | 'maxRunsPerGraph', max: number) =>
  new GatewayError('rate_limited', `Too many graph runs running at once (GRAPH_LIMITS.${limit}: ${max})`, {
    limit,
    max,
  });

/** A resumeFrom naming a run that is still running or already completed. */
export const graphRunNotResumable = (runId: string, state: string) =>
  new GatewayError('conflict', `Graph run ${runId} is ${state}; only a failed, cancelled or orphaned run resumes`, {
    param: 'resumeFrom',
    state,
  });

/** pipeline_define of a name a graph another token defined already has. */
export const graphNameTaken = (name: string) =>
  new GatewayError('conflict', `Graph '${name}' was defined by another token`, { param: 'name' });

/** graph.run vars that the definition does not declare or whose type differs from the declared one. */
export const graphVarsInvalid = (name: string, reason: string) =>
  new GatewayError('invalid_params', `vars.${name}: ${reason}`, { param: `vars.${name}` });
