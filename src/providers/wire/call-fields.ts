// Which of a call's settings a provider type cannot honour, from the fields its table row says it honours.
import { CALL_FIELDS, type CallField } from '../../provider-table.js';
import type { WireCallOptions } from './types.js';

/** Whether a call asks a field: set at all, or for responseFormat and parallelToolCalls, set to that value. */
const ASKED: { readonly [F in CallField]: (options: WireCallOptions) => boolean } = {
  'sampling.temperature': ({ sampling }) => sampling.temperature !== undefined,
  'sampling.topP': ({ sampling }) => sampling.topP !== undefined,
  'sampling.maxOutputTokens': ({ sampling }) => sampling.maxOutputTokens !== undefined,
  'sampling.stop': ({ sampling }) => sampling.stop !== undefined,
  'sampling.seed': ({ sampling }) => sampling.seed !== undefined,
  'sampling.presencePenalty': ({ sampling }) => sampling.presencePenalty !== undefined,
  'sampling.frequencyPenalty': ({ sampling }) => sampling.frequencyPenalty !== undefined,
  'sampling.logitBias': ({ sampling }) => sampling.logitBias !== undefined,
  'responseFormat.json_object': ({ responseFormat }) => responseFormat?.type === 'json_object',
  'responseFormat.json_schema': ({ responseFormat }) => responseFormat?.type === 'json_schema',
  toolChoice: ({ toolChoice }) => toolChoice !== undefined,
  parallelToolCalls: ({ parallelToolCalls }) => parallelToolCalls === false,
  reasoningEffort: ({ reasoningEffort }) => reasoningEffort !== undefined,
  serviceTier: ({ serviceTier }) => serviceTier !== undefined,
  promptCacheKey: ({ promptCacheKey }) => promptCacheKey !== undefined,
  safetyIdentifier: ({ safetyIdentifier }) => safetyIdentifier !== undefined,
  verbosity: ({ verbosity }) => verbosity !== undefined,
};

const NOTHING_REFUSED = (): string[] => [];

/** The adapter's unsupported(): built once per adapter, it checks only the fields the type does not honour. */
export function refusalsOf(honours: readonly CallField[]): (options: WireCallOptions) => string[] {
  const refused = CALL_FIELDS.filter((field) => !honours.includes(field));
  if (refused.length === 0) return NOTHING_REFUSED;
  return (options) => refused.filter((field) => ASKED[field](options));
}
