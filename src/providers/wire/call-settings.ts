// The call settings a caller may ask of one model call (sampling, output format, tool choice, reasoning, tier),
// named once for the router and every wire protocol; imports nothing.

export interface WireSampling {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Token id (as a string) to a bias from -100 to 100 (OpenAI's `logit_bias`). */
  logitBias?: Record<string, number>;
}

export type WireResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export type WireToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** OpenAI's reasoning effort for reasoning models; the other protocols size thinking in tokens and have no such setting. */
export type WireReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/** OpenAI's answer length for its GPT-5 models (`verbosity`). */
export type WireVerbosity = 'low' | 'medium' | 'high';

/** An OpenAI processing tier other than the project's own (`auto` and `default` ask nothing, so they never get here). */
export type WireServiceTier = 'flex' | 'scale' | 'priority';
