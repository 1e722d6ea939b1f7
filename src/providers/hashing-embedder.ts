// The built-in offline embedder: signed feature hashing of lowercase words and their character trigrams, L2-normalised. Deterministic.
import { GatewayError } from '../errors.js';
import { PROVIDER_LIMITS } from './limits.js';
import type { Embedder } from './types.js';

export interface HashingEmbedderOptions {
  /** Vector length. Default PROVIDER_LIMITS.hashingEmbedderDimensions. */
  dimensions?: number;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** FNV-1a, 32 bits, over the UTF-16 code units: fast, stable across runs and platforms. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Weight of each character trigram of a word, against 1 for the word itself. */
const TRIGRAM_WEIGHT = 0.5;
/**
 * One- and two-letter latin words (a, in, is, to, of …) are mostly function words; without IDF they would dominate
 * short texts, so they add no features. Digits and other scripts are kept.
 */
const SHORT_LATIN_WORD = /^[a-z]{1,2}$/;

/**
 * The vector of one text; all zeros when it has no word tokens. Trigrams of `<word>` make forms of one word close
 * (park / parked, allergy / allergic), which word features alone cannot.
 */
export function hashingVector(text: string, dimensions = PROVIDER_LIMITS.hashingEmbedderDimensions): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    // The top bit picks the sign, so colliding features tend to cancel rather than pile up.
    const index = hash % dimensions;
    vector[index] = (vector[index] ?? 0) + (hash & 0x80000000 ? -weight : weight);
  };
  for (const [token] of text.toLowerCase().matchAll(WORD)) {
    if (SHORT_LATIN_WORD.test(token)) continue;
    add(token, 1);
    const padded = `<${token}>`;
    // '#' keeps a trigram from hashing like a three-letter word.
    for (let start = 0; start + 3 <= padded.length; start += 1)
      add(`#${padded.slice(start, start + 3)}`, TRIGRAM_WEIGHT);
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/**
 * A call may ask for other `dimensions` than the embedder's own (any length is a valid hashing space, reported as
 * the model `hashing-<n>`), up to PROVIDER_LIMITS.hashingEmbedderMaxDimensions; more is refused, naming the limit.
 */
export function createHashingEmbedder({
  dimensions = PROVIDER_LIMITS.hashingEmbedderDimensions,
}: HashingEmbedderOptions = {}): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new TypeError('dimensions must be a positive integer');
  const model = `hashing-${dimensions}`;
  return {
    model,
    async embed(texts, signal, options = {}) {
      signal.throwIfAborted();
      const size = options.dimensions ?? dimensions;
      const max = PROVIDER_LIMITS.hashingEmbedderMaxDimensions;
      if (!Number.isInteger(size) || size < 1 || size > max) {
        throw new GatewayError(
          'invalid_params',
          `Invalid value for 'dimensions': the built-in hashing embedder makes at most ${max} dimensions`,
          { param: 'dimensions' },
        );
      }
      return {
        vectors: texts.map((text) => hashingVector(text, size)),
        model: size === dimensions ? model : `hashing-${size}`,
      };
    },
  };
}
