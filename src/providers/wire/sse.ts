// Decodes a Server-Sent Events byte stream into (event, data) frames with eventsource-parser over a streaming TextDecoder.
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { protocolError } from './errors.js';

/**
 * One frame may hold a whole tool call's arguments or a long text; beyond this many characters buffered
 * for one frame the call fails instead of growing without bound.
 */
export const SSE_MAX_FRAME_CHARS = 16 * 1024 * 1024;

export interface SseFrameHandler {
  /** `event` is the SSE event name (undefined for the default `message`); `data` the joined data lines. */
  frame(event: string | undefined, data: string): void;
}

export interface SseDecoder {
  /** Feeds raw bytes; a UTF-8 sequence or a line split across chunks is completed by the next feed. */
  feed(chunk: Uint8Array): void;
}

/** Hoisted: decode() otherwise allocates this options object on every chunk. */
const STREAM_OPTIONS = { stream: true } as const;

export function createSseDecoder(handler: SseFrameHandler, maxFrameChars: number = SSE_MAX_FRAME_CHARS): SseDecoder {
  const text = new TextDecoder('utf-8');
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => handler.frame(message.event, message.data),
    onError: (error: ParseError) => {
      // Unknown fields and bad `retry:` lines are ignorable noise (the SSE spec says so); an oversized frame is not.
      if (error.type === 'max-buffer-size-exceeded')
        throw protocolError(`SSE frame over ${maxFrameChars} characters`, error);
    },
    maxBufferSize: maxFrameChars,
  });
  return {
    feed(chunk) {
      const decoded = text.decode(chunk, STREAM_OPTIONS);
      // A chunk holding only the start of a UTF-8 sequence decodes to nothing until its rest arrives.
      if (decoded.length > 0) parser.feed(decoded);
    },
  };
}
