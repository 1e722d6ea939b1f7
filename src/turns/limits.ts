// The turn loop's limits in one place: names, units and defaults; agents override maxSteps and the token budget in config.

export interface TurnLimits {
  /** The same tool call with the same arguments this many times in one turn ends it with context_loop. */
  loopRepeatLimit: number;
  /** Context window assumed when the catalog does not know the model (tokens), e.g. an unlisted openai-compatible id. */
  defaultContextWindowTokens: number;
  /** Output room reserved when neither the request nor the catalog names the model's output limit (tokens). */
  defaultOutputHeadroomTokens: number;
}

export const DEFAULT_TURN_LIMITS: TurnLimits = {
  loopRepeatLimit: 3,
  defaultContextWindowTokens: 128_000,
  defaultOutputHeadroomTokens: 4096,
};
