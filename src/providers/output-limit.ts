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
  return {
    maxChars: maxTokens === undefined ? undefined : maxTokens * CHARS_PER_TOKEN * OUTPUT_TOKEN_MARGIN,
    maxBytes: maxResponseBytes,
  };
}

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

export interface OutputMeter {
  /**
   * Counts one streamed piece and answers the part of it within the limits: the whole piece, or (once a limit is
   * reached) the longest prefix that fits, possibly empty, which ends the reply.
   */
  admit(text: string): string;
  /** Characters admitted so far. */
  readonly chars: number;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * The longest prefix of `text` of at most `maxChars` UTF-16 code units and `maxBytes` UTF-8 bytes that ends on a
 * whole character: a surrogate pair is kept or left out whole (a lone surrogate counts as the 3 bytes of U+FFFD).
 */
export function prefixWithin(text: string, maxChars: number, maxBytes: number): string {
  const limit = Math.min(text.length, maxChars);
  let bytes = 0;
  let index = 0;
  while (index < limit) {
    const code = text.charCodeAt(index);
    const isPair = isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1));
    const width = isPair ? 2 : 1;
    const size = isPair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (index + width > limit || bytes + size > maxBytes) break;
    bytes += size;
    index += width;
  }
  return text.slice(0, index);
}

/** A class: one per model call, and an object literal with a getter costs more to make than an instance. */
class LimitedOutputMeter implements OutputMeter {
  #chars = 0;
  #bytes = 0;
  readonly #maxChars: number | undefined;
  readonly #maxBytes: number;

  constructor({ maxChars, maxBytes }: OutputLimits) {
    this.#maxChars = maxChars;
    this.#maxBytes = maxBytes;
  }

  admit(text: string): string {
    const maxChars = this.#maxChars;
    const nextChars = this.#chars + text.length;
    const nextBytes = this.#bytes + Buffer.byteLength(text, 'utf8');
    if ((maxChars === undefined || nextChars <= maxChars) && nextBytes <= this.#maxBytes) {
      this.#chars = nextChars;
      this.#bytes = nextBytes;
      return text;
    }
    const part = prefixWithin(
      text,
      maxChars === undefined ? text.length : maxChars - this.#chars,
      this.#maxBytes - this.#bytes,
    );
    this.#chars += part.length;
    this.#bytes += Buffer.byteLength(part, 'utf8');
    return part;
  }

  get chars(): number {
    return this.#chars;
  }
}

export function createOutputMeter(limits: OutputLimits): OutputMeter {
  return new LimitedOutputMeter(limits);
}
