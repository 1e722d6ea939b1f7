// The raw HTTP answer to an upgrade refused before the WebSocket handshake (bad origin, token store unreachable),
// in the REST error envelope with the status and Retry-After its kind implies; the socket closes after it.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { publicMessage, retryAfterHeaderSeconds, type GatewayError } from '../errors.js';
import { HTTP_STATUS } from '../server/index.js';

function upgradeRefusal(error: GatewayError): string {
  const status = HTTP_STATUS[error.kind];
  const body = JSON.stringify({ error: { code: error.kind, message: publicMessage(error) } });
  const retryAfter = retryAfterHeaderSeconds(error.details);
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    ...(retryAfter === undefined ? [] : [`Retry-After: ${retryAfter}`]),
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** Writes the refusal and closes the socket once it is sent, whether or not the client ever closes its side. */
export function refuseUpgrade(socket: Duplex, error: GatewayError): void {
  socket.end(upgradeRefusal(error), () => socket.destroy());
}
