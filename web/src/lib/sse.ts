// Server-sent events read through fetch, so the token travels in the Authorization header (EventSource cannot set one).
import { authHeaders } from './auth';
import { isRecord } from './is-record';

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export interface SseOptions {
  signal: AbortSignal;
  /** Sent as Last-Event-ID so the server replays what was missed. */
  lastEventId?: string;
  onEvent: (event: SseEvent) => void;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export async function errorOf(response: Response): Promise<HttpError> {
  let code = 'http_error';
  let message = `${response.status} ${response.statusText}`;
  try {
    const body: unknown = await response.json();
    const error = isRecord(body) ? body.error : undefined;
    if (isRecord(error)) {
      if (typeof error.code === 'string') code = error.code;
      if (typeof error.message === 'string') message = error.message;
    }
  } catch {
    // Not a JSON envelope: the status line says enough.
  }
  return new HttpError(response.status, code, message);
}

/** Parses one SSE block (lines up to a blank line) per the WHATWG event-stream rules. */
function parseBlock(block: string): SseEvent | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n'), id };
}

/** Streams one SSE response until it ends or the signal aborts; throws HttpError on a non-2xx answer. */
export async function readSse(url: string, { signal, lastEventId, onEvent }: SseOptions): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders() };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(url, { headers, signal, cache: 'no-store' });
  if (!response.ok) throw await errorOf(response);
  if (response.body === null || response.status === 204) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.search(/\r\n\r\n|\n\n|\r\r/);
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^(\r\n\r\n|\n\n|\r\r)/, '');
      const parsed = parseBlock(block);
      if (parsed !== undefined) onEvent(parsed);
      end = buffer.search(/\r\n\r\n|\n\n|\r\r/);
    }
  }
}
