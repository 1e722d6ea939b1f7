// Reply chunking: each chunk within the platform's limit, split at paragraph, line, then word breaks, never inside a pair.
import { describe, expect, it } from 'vitest';
import { chunkText } from '../../../src/channels/chunk.js';

describe('chunkText', () => {
  it('leaves a short reply whole', () => {
    expect(chunkText('Hello there.', 4096)).toEqual(['Hello there.']);
  });

  it('splits at the last paragraph break that fits before a line or word break', () => {
    const first = 'a'.repeat(30);
    const second = `${'b'.repeat(10)}\n${'c'.repeat(10)} ${'d'.repeat(10)}`;
    expect(chunkText(`${first}\n\n${second}`, 40)).toEqual([first, second]);
  });

  it('splits at a line break, then at a word break, when no paragraph break fits', () => {
    expect(chunkText(`${'a'.repeat(30)}\n${'b'.repeat(30)}`, 40)).toEqual(['a'.repeat(30), 'b'.repeat(30)]);
    const words = Array.from({ length: 20 }, (_, index) => `word${index}`).join(' ');
    const chunks = chunkText(words, 25);
    expect(chunks.every((chunk) => chunk.length <= 25)).toBe(true);
    expect(chunks.join(' ')).toBe(words);
    expect(chunks.every((chunk) => !chunk.startsWith(' ') && !chunk.endsWith(' '))).toBe(true);
  });

  it('never cuts a surrogate pair in half', () => {
    const emoji = '😀'.repeat(10);
    const chunks = chunkText(emoji, 5);
    expect(chunks.every((chunk) => chunk.length <= 5)).toBe(true);
    expect(chunks.join('')).toBe(emoji);
    for (const chunk of chunks) expect(chunk).toBe([...chunk].join(''));
    expect(chunks.every((chunk) => !/[\uD800-\uDBFF]$/.test(chunk))).toBe(true);
  });

  it('hard-cuts a word longer than the limit', () => {
    expect(chunkText('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });
});
