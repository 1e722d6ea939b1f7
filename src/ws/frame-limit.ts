// The byte cap `ws` enforces on a frame, sized so that the spec's character check answers every oversize
// message it can, and the socket class that closes a frame beyond the cap with 1009 and a reason.
import { WebSocket } from 'ws';
import { WS_LIMITS } from './limits.js';

/** RFC 6455 §7.4.1: the message is too big to process. */
export const CLOSE_MESSAGE_TOO_BIG = 1009;

/** The `maxPayload` handed to `ws` for a character limit of `maxMessageChars`. */
export function frameByteCap(maxMessageChars: number): number {
  return Math.min(maxMessageChars * 4 + WS_LIMITS.frameSlackBytes, WS_LIMITS.frameCeilingBytes);
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
