// Recorded SSE streams of each protocol decode to the same events however the bytes are split, UTF-8 sequences included.
import { describe, expect, it } from 'vitest';
import { AnthropicMessagesDecoder } from '../../../src/providers/wire/anthropic-messages-decoder.js';
import { ProviderCallError } from '../../../src/providers/wire/errors.js';
import { GeminiDecoder } from '../../../src/providers/wire/google-gemini-decoder.js';
import { OpenAiChatDecoder } from '../../../src/providers/wire/openai-chat-decoder.js';
import { createSseDecoder } from '../../../src/providers/wire/sse.js';
import type { StreamDecoder } from '../../../src/providers/wire/stream-call.js';
import type { WireEvent } from '../../../src/providers/wire/types.js';
import { RECORDED_STREAMS } from './recorded-streams.js';

const DECODERS: Record<keyof typeof RECORDED_STREAMS, () => StreamDecoder> = {
  'openai-chat': () => new OpenAiChatDecoder(),
  'anthropic-messages': () => new AnthropicMessagesDecoder(),
  'google-gemini': () => new GeminiDecoder(),
};

function decode(newDecoder: () => StreamDecoder, chunks: readonly Uint8Array[]): WireEvent[] {
  const decoder = newDecoder();
  const out: WireEvent[] = [];
  const sse = createSseDecoder({ frame: (event, data) => decoder.frame(event, data, out) });
  for (const chunk of chunks) sse.feed(chunk);
  decoder.end(out);
  return out;
}

describe('SSE frame splitting', () => {
  for (const protocol of ['openai-chat', 'anthropic-messages', 'google-gemini'] as const) {
    const recorded = RECORDED_STREAMS[protocol];
    const newDecoder = DECODERS[protocol];
    const { bytes, events } = recorded;

    it(`decodes the recorded ${recorded.name} stream in one piece`, () => {
      expect(decode(newDecoder, [bytes])).toEqual(events);
    });

    it(`decodes the recorded ${recorded.name} stream split in two at every byte boundary`, () => {
      const mismatches: number[] = [];
      for (let split = 1; split < bytes.length; split += 1) {
        const decoded = decode(newDecoder, [bytes.subarray(0, split), bytes.subarray(split)]);
        if (JSON.stringify(decoded) !== JSON.stringify(events)) mismatches.push(split);
      }
      expect(mismatches).toEqual([]);
    });

    it(`decodes the recorded ${recorded.name} stream fed one byte at a time`, () => {
      const single = Array.from(bytes, (_, index) => bytes.subarray(index, index + 1));
      expect(decode(newDecoder, single)).toEqual(events);
    });
  }

  it('the recordings hold multi-byte UTF-8 that splits inside a character', () => {
    for (const recorded of Object.values(RECORDED_STREAMS)) {
      const text = new TextDecoder().decode(recorded.bytes);
      expect(recorded.bytes.length).toBeGreaterThan(text.length);
      expect(text).toContain('🎉');
    }
  });

  it('ignores comments and unknown fields, and reads CR-only line ends', () => {
    const frames: [string | undefined, string][] = [];
    const sse = createSseDecoder({ frame: (event, data) => frames.push([event, data]) });
    // A CR that ends a chunk might be half of a CRLF, so the frame ends when the next byte arrives.
    sse.feed(new TextEncoder().encode(': keep-alive\rfoo: bar\rdata: one\r\revent: named\rdata: two\rdata: lines\r\r'));
    sse.feed(new TextEncoder().encode(': tail\n'));
    expect(frames).toEqual([
      [undefined, 'one'],
      ['named', 'two\nlines'],
    ]);
  });

  it('fails on a frame larger than the limit instead of buffering without bound', () => {
    const sse = createSseDecoder({ frame: () => undefined }, 64);
    const failure = (() => {
      try {
        sse.feed(new TextEncoder().encode(`data: ${'x'.repeat(100)}`));
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(ProviderCallError);
    expect(failure).toMatchObject({ kind: 'server', detail: 'SSE frame over 64 characters' });
  });

  it('fails a stream that ends before its finish, and an unparsable frame, as server errors', () => {
    for (const newDecoder of Object.values(DECODERS)) {
      const truncated = newDecoder();
      expect(() => truncated.end([])).toThrow(expect.objectContaining({ kind: 'server' }));
      expect(() => newDecoder().frame(undefined, '{"choices": [', [])).toThrow(
        expect.objectContaining({ kind: 'server' }),
      );
    }
  });

  it('reads a Gemini prompt that was blocked before any candidate as a content-filter finish', () => {
    const decoder = new GeminiDecoder();
    const out: WireEvent[] = [];
    decoder.frame(
      undefined,
      '{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 7}}',
      out,
    );
    decoder.end(out);
    expect(out).toEqual([
      {
        type: 'finish',
        finishReason: 'content-filter',
        usage: { inputTokens: 7, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
  });
});
