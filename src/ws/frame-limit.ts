// The byte cap `ws` enforces on a frame, sized so that the spec's character check answers every oversize
// message it can, and the socket class that closes a frame beyond the cap with 1009 and a reason.
import { WebSocket } from 'ws';

/**
 * A character of the spec's limit (one UTF-16 unit) takes at most 3 UTF-8 bytes; 4 bytes per character plus
 * this slack leaves room for messages well past the limit, which then get the spec's -32600 answer.
 */
const FRAME_SLACK_BYTES = 64 * 1024;

/** Whatever wsMaxMessageBytes says, no frame larger than `ws`'s own default cap is buffered. */
export const WS_FRAME_CEILING_BYTES = 100 * 1024 * 1024;

/** RFC 6455 §7.4.1: the message is too big to process. */
export const CLOSE_MESSAGE_TOO_BIG = 1009;

/** The `maxPayload` handed to `ws` for a character limit of `maxMessageChars`. */
export function frameByteCap(maxMessageChars: number): number {
  return Math.min(maxMessageChars * 4 + FRAME_SLACK_BYTES, WS_FRAME_CEILING_BYTES);
}

/**
 * `ws` closes a frame beyond `maxPayload` with 1009 and no reason; this subclass adds one naming the cap,
 * so a client can tell a size refusal from any other close.
 */
export function socketClassWithFrameCap(capBytes: number): typeof WebSocket {
  const reason = `Message too big: frames are limited to ${capBytes} bytes`;
  return class FrameCappedWebSocket extends WebSocket {
    override close(code?: number, data?: string | Buffer): void {
      super.close(code, code === CLOSE_MESSAGE_TOO_BIG && data === undefined ? reason : data);
    }
  };
}
