// What a turn that threw ends with: its finish reason, the message the caller sees and (for timeouts) the report's endReason.
import type { Logger } from 'pino';
import { INTERNAL_ERROR_MESSAGE, isGatewayError } from '../errors.js';
import type { TurnTrace } from './turn-trace.js';
import type { FinishReason } from './types.js';

export function classifyFailure(
  error: unknown,
  signal: AbortSignal,
  trace: TurnTrace,
  { step, elapsedMs }: { step: number; elapsedMs: number },
  log: Logger,
): [FinishReason, string, string?] {
  if (signal.aborted) {
    trace.modelError(step, { kind: 'aborted' });
    return ['aborted', 'The turn was cancelled'];
  }
  if (isGatewayError(error)) {
    const { reason, errorKind, timeoutMs, model } = error.details;
    trace.modelError(step, {
      kind: error.kind,
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof errorKind === 'string' ? { providerErrorKind: errorKind } : {}),
    });
    if (reason === 'circuit_open') return ['circuit_open', error.message];
    if (errorKind === 'timeout') {
      const provider = typeof model === 'string' ? model.split('/')[0] : undefined;
      trace.promptTimeout({
        elapsedMs,
        ...(typeof timeoutMs === 'number' ? { budgetMs: timeoutMs } : {}),
        ...(provider === undefined ? {} : { knob: `providers.${provider}.timeoutMs` }),
      });
      return ['error', error.message, 'timeout'];
    }
    if (error.kind !== 'internal') return ['error', error.message];
  }
  log.error({ err: error }, 'turn failed');
  trace.modelError(step, { kind: 'internal' });
  return ['error', INTERNAL_ERROR_MESSAGE];
}

