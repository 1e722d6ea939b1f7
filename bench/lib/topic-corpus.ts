// A deterministic synthetic memory corpus shaped like real memories: entries written around topics, with Zipf-distributed
// words over a vocabulary of thousands of words plus common function words, and queries asked about those topics.

/** mulberry32: a small seeded PRNG, so the same seed gives the same corpus on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface TopicCorpusOptions {
  seed?: number;
  /** Distinct content words. Default 6,000. */
  vocabularySize?: number;
  /** Topics entries are written around. Default 1,000. */
  topics?: number;
  /** Content words each topic draws on. Default 40. */
  wordsPerTopic?: number;
}

export interface TopicCorpus {
  /** The next entry's text (8–24 words). */
  entry(): string;
  /** The next query's text (2–6 words about one topic). */
  query(): string;
}

/** English function words: frequent in every text, as in real memories (one- and two-letter ones included). */
const FUNCTION_WORDS = (
  'the and to of a in is that for it was on with as he be at by this have from or had not but what all were we when ' +
  'your can said there use an each which she do how their if will up other about out many then them these so some her ' +
  'would make like him into has look two more write go see number no way could people my than first been call who its ' +
  'now find long down day did get come made may part'
).split(' ');

/** Letters weighted by their frequency in English text, so content words share trigrams about as often as real ones. */
const LETTERS =
  'eeeeeeeeeeeetttttttttaaaaaaaaooooooooiiiiiiinnnnnnnsssssshhhhhhrrrrrrddddllllcccuuummmwwffggyyppbbvkjxqz';

/** Samples ranks 0..size-1 with probability proportional to 1 / (rank + 1)^exponent. */
function zipf(size: number, exponent: number, next: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank += 1) {
    total += 1 / (rank + 1) ** exponent;
    cumulative[rank] = total;
  }
  return () => {
    const target = next() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] ?? total) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/** Distinct made-up words of 3–10 letters. */
function vocabulary(size: number, next: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const length = 3 + Math.floor(next() * 8);
    let word = '';
    for (let index = 0; index < length; index += 1) word += LETTERS.charAt(Math.floor(next() * LETTERS.length));
    words.add(word);
  }
  return [...words];
}

export function createTopicCorpus({
  seed = 1,
  vocabularySize = 6_000,
  topics = 1_000,
  wordsPerTopic = 40,
}: TopicCorpusOptions = {}): TopicCorpus {
  const next = seededRandom(seed);
  const words = vocabulary(vocabularySize, next);
  const backgroundRank = zipf(words.length, 1.05, next);
  const functionRank = zipf(FUNCTION_WORDS.length, 1, next);
  const topicRank = zipf(topics, 0.6, next);
  const withinTopicRank = zipf(wordsPerTopic, 0.9, next);
  // A topic's own words are drawn evenly from the vocabulary (past the most common), so topics overlap only by chance.
  const topicWords = Array.from({ length: topics }, () =>
    Array.from({ length: wordsPerTopic }, () => words[100 + Math.floor(next() * (words.length - 100))] ?? 'memo'),
  );
  const background = () => words[backgroundRank()] ?? 'memo';
  const functionWord = () => FUNCTION_WORDS[functionRank()] ?? 'the';
  const text = (length: number, topicShare: number, functionShare: number) => {
    const own = topicWords[topicRank()] ?? [];
    const out: string[] = [];
    for (let index = 0; index < length; index += 1) {
      const roll = next();
      if (roll < topicShare) out.push(own[withinTopicRank()] ?? 'memo');
      else if (roll < topicShare + functionShare) out.push(functionWord());
      else out.push(background());
    }
    return out.join(' ');
  };
  return {
    entry: () => text(8 + Math.floor(next() * 17), 0.45, 0.35),
    query: () => text(2 + Math.floor(next() * 5), 0.7, 0.15),
  };
}
