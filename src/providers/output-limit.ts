// Bounds one model reply as it streams in: past the output-token ceiling (estimated from characters) or the
// provider's maxResponseBytes, the call is cut, so a server that ignores max_tokens cannot grow our memory.

/** Characters per token the estimate uses (the same rough rule as the fake server's and the context budget's). */
export const CHARS_PER_TOKEN = 4;

/**
 * A reply is cut only past twice the token ceiling as estimated: a compliant server stops at the ceiling, and
 * tokens longer than 4 characters (long words, indentation) must not cut an answer that was within it.
 */
export const OUTPUT_TOKEN_MARGIN = 2;

export interface OutputLimits {
  /** Characters of text, reasoning and tool-call arguments; undefined when no token ceiling is known. */
  maxChars: number | undefined;
  /** UTF-8 bytes of the same. */
  maxBytes: number;
}

/** The limits for a call whose output ceiling is `maxTokens` (what we asked for, else the catalog's) tokens. */
export function outputLimits(maxTokens: number | undefined, maxResponseBytes: number): OutputLimits {
  return { maxChars: maxTokens === undefined ? undefined : maxTokens * CHARS_PER_TOKEN * OUTPUT_TOKEN_MARGIN, maxBytes: maxResponseBytes };
}

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

export interface OutputMeter {
  /** Counts one streamed piece; false when it would pass a limit (the piece is then not counted). */
  admit(text: string): boolean;
  /** Characters admitted so far. */
  readonly chars: number;
}

export function createOutputMeter({ maxChars, maxBytes }: OutputLimits): OutputMeter {
  let chars = 0;
  let bytes = 0;
  return {
    admit(text) {
      const nextChars = chars + text.length;
      const nextBytes = bytes + Buffer.byteLength(text, 'utf8');
      if ((maxChars !== undefined && nextChars > maxChars) || nextBytes > maxBytes) return false;
      chars = nextChars;
      bytes = nextBytes;
      return true;
    },
    get chars() {
      return chars;
    },
  };
}
