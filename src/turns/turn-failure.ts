// What a turn that threw ends with: its finish reason, the message the caller sees, the failure's kind (with its retry
// hint and upstream status) for the surfaces to map, and (for timeouts) the report's endReason.
import type { Logger } from 'pino';
import { isDependencyOutage } from '../dependency-outage.js';
import { dependencyUnavailable, INTERNAL_ERROR_MESSAGE, isGatewayError, type GatewayError } from '../errors.js';
import { upstreamFailuresOf } from '../providers/index.js';
import type { TurnTrace } from './turn-trace.js';
import type { FinishReason, TurnResult } from './types.js';

export interface TurnFailure {
  finishReason: FinishReason;
  /** The message the caller sees. */
  error: string;
  /** The report's endReason when it is finer than the finish reason (`timeout`). */
  endReason?: string;
  /** What failed, as TurnResult carries it. */
  fields: Pick<TurnResult, 'errorKind' | 'retryAfterMs' | 'upstreamStatus'>;
}

/** The failure as a GatewayError: its own, a dependency outage (storage or Redis unreachable mid-turn), or none (a bug). */
function knownFailure(error: unknown): GatewayError | undefined {
  if (isGatewayError(error)) return error;
  return isDependencyOutage(error) ? dependencyUnavailable(error) : undefined;
}

function fieldsOf(failure: GatewayError): TurnFailure['fields'] {
  const { retryAfterMs, statusCode } = failure.details;
  return {
    errorKind: failure.kind,
    ...(typeof retryAfterMs === 'number' ? { retryAfterMs } : {}),
    ...(failure.kind === 'upstream_failed' && typeof statusCode === 'number' ? { upstreamStatus: statusCode } : {}),
  };
}

export function classifyFailure(
  error: unknown,
  signal: AbortSignal,
  trace: TurnTrace,
  { step, elapsedMs }: { step: number; elapsedMs: number },
  log: Logger,
): TurnFailure {
  if (signal.aborted) {
    trace.modelError(step, { kind: 'aborted' });
    return { finishReason: 'aborted', error: 'The turn was cancelled', fields: {} };
  }
  const failure = knownFailure(error);
  if (failure !== undefined && failure.kind !== 'internal') {
    const isOutage = failure !== error;
    const { reason, errorKind, timeoutMs, model, budgetId } = failure.details;
    trace.modelError(step, {
      kind: failure.kind,
      ...(typeof budgetId === 'string' ? { budgetId } : {}),
      ...(typeof reason === 'string' ? { reason } : isOutage ? { reason: 'dependency_outage' } : {}),
      ...(typeof errorKind === 'string' ? { providerErrorKind: errorKind } : {}),
      models: upstreamFailuresOf(failure),
    });
    const fields = fieldsOf(failure);
    if (isOutage) log.warn({ err: error, step }, 'turn stopped: storage or coordination could not be reached');
    if (reason === 'circuit_open') return { finishReason: 'circuit_open', error: failure.message, fields };
    // Refused before dispatch: the turn ends as one that ran out of budget, naming the budget.
    if (failure.kind === 'budget_exceeded') return { finishReason: 'budget_exceeded', error: failure.message, fields };
    if (errorKind === 'timeout') {
      const provider = typeof model === 'string' ? model.split('/')[0] : undefined;
      trace.promptTimeout({
        elapsedMs,
        ...(typeof timeoutMs === 'number' ? { budgetMs: timeoutMs } : {}),
        ...(provider === undefined ? {} : { knob: `providers.${provider}.timeoutMs` }),
      });
      return { finishReason: 'error', error: failure.message, endReason: 'timeout', fields };
    }
    return { finishReason: 'error', error: failure.message, fields };
  }
  log.error({ err: error }, 'turn failed');
  trace.modelError(step, { kind: 'internal' });
  return { finishReason: 'error', error: INTERNAL_ERROR_MESSAGE, fields: { errorKind: 'internal' } };
}
