// The one mapping of gateway errors to A2A's JSON-RPC errors: an A2A refusal (details.a2aError) as its own error, any
// other kind with the JSON-RPC code /rpc gives it; internal causes never reach the wire.
import {
  A2AError,
  ContentTypeNotSupportedError,
  JsonRpcTransportError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { publicMessage, toGatewayError, type A2aErrorName } from '../errors.js';
import { RPC_CODE } from '../rpc/index.js';

const A2A_ERRORS: Record<A2aErrorName, new (message: string) => A2AError> = {
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  VersionNotSupportedError,
};

const isA2aErrorName = (name: unknown): name is A2aErrorName => typeof name === 'string' && name in A2A_ERRORS;

export function toA2aError(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  const mapped = toGatewayError(error);
  const { a2aError } = mapped.details;
  const message = publicMessage(mapped);
  if (isA2aErrorName(a2aError)) return new A2A_ERRORS[a2aError](message);
  return new JsonRpcTransportError({
    jsonrpc: '2.0',
    id: null,
    error: { code: RPC_CODE[mapped.kind], message, data: { kind: mapped.kind } },
  });
}
