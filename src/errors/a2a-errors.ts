// Errors of A2A (src/a2a): the protocol's own refusals (details.a2aError names the A2A error, which src/a2a maps to its
// JSON-RPC code once) and the bounded tool errors of delegations to remote A2A agents (a2a_unavailable).
import { GatewayError, invalidParams, notFound } from './gateway-error.js';

/** The A2A errors (A2A v1.0 §3.3.2) a GatewayError of src/a2a may stand for. */
export type A2aErrorName =
  | 'TaskNotFoundError'
  | 'TaskNotCancelableError'
  | 'PushNotificationNotSupportedError'
  | 'UnsupportedOperationError'
  | 'ContentTypeNotSupportedError'
  | 'VersionNotSupportedError';

const a2a = (kind: GatewayError['kind'], a2aError: A2aErrorName, message: string) =>
  new GatewayError(kind, message, { a2aError });

/** A path naming an agent that a2a.expose does not list (or that is not configured). */
export const a2aAgentNotExposed = (agentId: string) =>
  notFound(`No A2A agent ${agentId} (a2a.expose lists the agents served over A2A)`, { param: 'agentId' });

/** A task id the calling token has no task under (another token's tasks are not found either). */
export const a2aTaskNotFound = (taskId: string) => a2a('not_found', 'TaskNotFoundError', `Task not found: ${taskId}`);

export const a2aTaskNotCancelable = (taskId: string, state: string) =>
  a2a('conflict', 'TaskNotCancelableError', `Task ${taskId} is ${state} and can no longer be canceled`);

export const a2aPushNotSupported = () =>
  a2a('invalid_request', 'PushNotificationNotSupportedError', 'Push notifications are not supported by this agent');

export const a2aUnsupported = (what: string) =>
  a2a('invalid_request', 'UnsupportedOperationError', `${what} is not supported by this agent`);

/** A part this gateway cannot hand to a model (a file by URL or raw bytes): only text and data parts are taken. */
export const a2aPartNotSupported = (index: number) =>
  a2a(
    'invalid_params',
    'ContentTypeNotSupportedError',
    `message.parts[${index}]: only text and data parts are accepted (files are not)`,
  );

/** The A2A-Version the request asked for (absent: 0.3, A2A v1.0 §3.6) is not one this gateway serves. */
export const a2aVersionNotSupported = (requested: string, supported: string) =>
  a2a(
    'invalid_request',
    'VersionNotSupportedError',
    `A2A-Version ${requested === '' ? '(absent, read as 0.3)' : requested} is not supported; send A2A-Version: ${supported}`,
  );

export const a2aTooManyParts = (count: number, max: number) =>
  invalidParams(
    `message.parts holds ${count} parts, over the limit of ${max} (a2a.limits.maxMessageParts)`,
    'message.parts',
  );

export const a2aMessageTooLong = (chars: number, max: number) =>
  invalidParams(
    `message.parts hold ${chars} characters, over the limit of ${max} (a2a.limits.maxMessageChars)`,
    'message.parts',
  );

export const a2aMessageEmpty = () => invalidParams('message.parts holds no text', 'message.parts');

/** A token already has a2a.limits.maxRunningTasksPerToken tasks running here. */
export const a2aTooManyTasks = (limit: number) =>
  new GatewayError(
    'rate_limited',
    `Too many A2A tasks running for this token (a2a.limits.maxRunningTasksPerToken: ${limit}); wait for one to end`,
  );

/** A remote that could not be reached or answered out of protocol: its delegation tool fails with the reason. */
export const a2aRemoteUnavailable = (remote: string, reason: string) =>
  new GatewayError('unavailable', `A2A remote ${remote} is unavailable: ${reason}`, {
    remote,
    toolErrorKind: 'a2a_unavailable',
  });

/** An agent's tools list names `a2a:<name>` of a remote that is not under a2a.remotes. */
export const a2aRemoteNotConfigured = (remote: string) =>
  a2aRemoteUnavailable(remote, `no remote named ${remote} is configured under a2a.remotes`);

/** A remote answer larger than a2a.limits.maxRemoteReplyBytes; its content is dropped, never passed on. */
export const a2aRemoteReplyTooLarge = (remote: string, maxBytes: number) =>
  new GatewayError(
    'upstream_failed',
    `A2A remote ${remote} answered more than ${maxBytes} bytes (a2a.limits.maxRemoteReplyBytes)`,
    { remote, maxBytes, toolErrorKind: 'a2a_unavailable' },
  );

/** The remote task ended failed, canceled or rejected, or asks for input or authentication a delegation cannot give. */
export const a2aRemoteTaskUnfinished = (remote: string, taskId: string, state: string, text: string) =>
  new GatewayError(
    'upstream_failed',
    `A2A remote ${remote} task ${taskId} ended ${state}${text === '' ? '' : `: ${text}`}`,
    { remote, remoteTaskId: taskId, remoteState: state },
  );
