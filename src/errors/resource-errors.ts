// Errors about the things clients own and name: agents, sessions, runs, approvals, jobs, tokens, providers, responses.
import { GatewayError, notFound } from './gateway-error.js';

export const agentNotFound = (agentId: string, param = 'agentId') =>
  notFound(`Agent '${agentId}' not found`, { param });

/** An agent whose status is `suspended` (DESIGN §3): `hint` says how to resume it where the surface can. */
export const agentSuspended = (agentId: string, param = 'agentId', hint = '') =>
  new GatewayError('conflict', `Agent '${agentId}' is suspended and accepts no new messages${hint}`, { param });

/** An agent with no usable model (none configured, or one no provider serves): a config problem, not an upstream failure. */
export const agentWithoutModel = (agentId: string, param = 'agentId') =>
  new GatewayError('conflict', `Agent '${agentId}' has no model: set agents.${agentId}.model`, { param });

export const sessionNotFound = (sessionKey: string, param = 'session_key') =>
  notFound(`Session not found: ${sessionKey}`, { param });

/** `param` names the params field that carried the id (session.run_status says run_id, run.* say runId). */
export const runNotFound = (runId: string, param = 'run_id') => notFound(`Run not found: ${runId}`, { param });

/** A run tree that run.kill, lease.revoke or the denial breaker stopped takes no new runs. */
export const runTreeStopped = (rootRunId: string) =>
  new GatewayError(
    'conflict',
    `Run tree ${rootRunId} was stopped (run.kill, lease.revoke or the denial breaker) and takes no new runs`,
  );

export const approvalNotFound = (id: string) => notFound(`Approval request not found: ${id}`, { param: 'id' });

export const approvalAlreadyResolved = (id: string, status: string) =>
  new GatewayError('conflict', `Approval request ${id} is already ${status}`, { param: 'id' });

/** No scheduled job has this name, or the caller does not own it (never told apart, so other clients' jobs stay unseen). */
export const jobNotFound = (name: string, param = 'name') => notFound(`Job '${name}' not found`, { param });

export const jobNameTaken = (name: string) =>
  new GatewayError('conflict', `You already have a job named '${name}'`, { param: 'name' });

export const tooManyJobs = (maxJobsPerOwner: number) =>
  new GatewayError(
    'conflict',
    `A token may have at most ${maxJobsPerOwner} scheduled jobs (scheduler.maxJobsPerOwner); remove one first`,
    { maxJobsPerOwner },
  );

export const tokenNotFound = (id: string) => notFound(`Token '${id}' not found`, { param: 'id' });

export const unknownProvider = (provider: string, param = 'provider') =>
  notFound(`Unknown provider '${provider}'`, { param });

/** Someone else's session (DESIGN §3 "who may use a session"); the message never says whose it is. */
export const sessionForbidden = (sessionKey: string) =>
  new GatewayError('forbidden', `Session ${sessionKey} belongs to another client`);

/** A session key in a tenant the caller's token was not given (config `gateway.tokens[].tenants`). */
export const tenantForbidden = (tenantId: string) =>
  new GatewayError('forbidden', `Sessions of tenant '${tenantId}' are open only to tokens given that tenant`, {
    param: 'sessionKey',
  });

/** A /v1 response id created by another token; it belongs to its token like the session behind it. */
export const responseForbidden = (responseId: string, param: string | null = 'previous_response_id') =>
  new GatewayError('forbidden', `Response ${responseId} belongs to another client`, param === null ? {} : { param });

/** A /v1 response id never created, deleted, or older than `responses.ttlDays`. */
export const responseNotFound = (responseId: string, param: string | null = null) =>
  notFound(`Response not found: ${responseId}`, param === null ? {} : { param });

/** A token id issued before (now revoked): ids own sessions and media, so one is never issued twice. */
export const tokenIdTaken = (id: string) =>
  new GatewayError(
    'conflict',
    `Token '${id}' was issued before and revoked; a token id is never issued again (it owns what its token made), so choose another`,
    { param: 'id' },
  );

/** A traceId no recorded turn carries (obs.trace.get). */
export const traceNotFound = (traceId: string) =>
  notFound(`No recorded turn has traceId '${traceId}'`, { param: 'traceId' });
