// Model failures of one session: each model a failed call tried (a model_error record's `models`), as failures[] entries.
import { TRAJECTORY_KIND } from '../evidence/kinds.js';
import { count, isRecord, optNum, str } from '../evidence/read.js';
import type { TrajectoryEvidence } from '../evidence/records.js';
import type { FailureEntry } from './types.js';

/** The upstream's message is stored masked and capped at 500 characters (providers/wire/upstream-message.ts), plus "…". */
export const MODEL_MESSAGE_MAX_CHARS = 501;
/** errorPreview and the root cause quote this much of each message; failures[].message has it whole. */
export const QUOTED_MESSAGE_MAX_CHARS = 200;
/** A failed call names at most this many models (providers MAX_NAMED_FAILURES); more in a record are not read. */
const MAX_MODELS_PER_RECORD = 5;

/** One failed model: where, which, and what the upstream answered. */
export interface ModelFailure {
  provider: string;
  model: string;
  errorKind: string;
  status?: number;
  message?: string;
}

const quote = (message: string): string =>
  message.length > QUOTED_MESSAGE_MAX_CHARS ? `${message.slice(0, QUOTED_MESSAGE_MAX_CHARS)}…` : message;

/** `server (HTTP 500): upstream exploded`, the message quoted short. */
export function describeModelFailure(failure: ModelFailure): string {
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
  return `${failure.errorKind}${status}${failure.message === undefined ? '' : `: ${quote(failure.message)}`}`;
}

function readFailure(value: unknown): ModelFailure | undefined {
  if (!isRecord(value)) return undefined;
  const provider = str(value.provider);
  const model = str(value.model);
  if (provider === undefined || model === undefined) return undefined;
  const status = optNum(value.status);
  const message = str(value.message, MODEL_MESSAGE_MAX_CHARS);
  return {
    provider,
    model,
    errorKind: str(value.providerErrorKind) ?? 'failed',
    ...(status === undefined || !Number.isInteger(status) || status < 100 || status > 599 ? {} : { status }),
    ...(message === undefined ? {} : { message }),
  };
}

/** The models one model_error record names, in the order they were tried; none for a malformed or model-free record. */
export function modelFailuresOf(record: TrajectoryEvidence | undefined): ModelFailure[] {
  const models = record?.data.models;
  if (record?.kind !== TRAJECTORY_KIND.modelError || !Array.isArray(models)) return [];
  return models
    .slice(0, MAX_MODELS_PER_RECORD)
    .map(readFailure)
    .filter((failure): failure is ModelFailure => failure !== undefined);
}

/** failures[] entries of every failed model call, newest first (`records` sorted by seq); toolName is `provider/model`. */
export function collectModelFailures(records: readonly TrajectoryEvidence[]): FailureEntry[] {
  const entries: FailureEntry[] = [];
  for (const record of records) {
    const step = count(record.data.step);
    for (const failure of modelFailuresOf(record)) {
      entries.push({
        seq: record.seq,
        toolName: `${failure.provider}/${failure.model}`,
        errorKind: failure.errorKind,
        resultDigest: 'none',
        resultBytes: 0,
        errorPreview: describeModelFailure(failure),
        provider: failure.provider,
        model: failure.model,
        ...(failure.status === undefined ? {} : { status: failure.status }),
        ...(failure.message === undefined ? {} : { message: failure.message }),
        step,
      });
    }
  }
  return entries.reverse();
}
