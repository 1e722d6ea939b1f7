// Server-sent events read through fetch, so the token travels in the Authorization header (EventSource cannot set one).
import { createParser } from 'eventsource-parser';
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
  onOpen?: () => void;
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

/**
 * Streams one SSE response until it ends or the signal aborts; throws HttpError on a non-2xx answer. `onOpen` runs once
 * the server has accepted the stream, before any event (a feed with nothing to say yet is still live).
 */
export async function readSse(url: string, { signal, lastEventId, onOpen, onEvent }: SseOptions): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders() };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(url, { headers, signal, cache: 'no-store' });
  if (!response.ok) throw await errorOf(response);
  if (response.body === null || response.status === 204) return;
  onOpen?.();
  const parser = createParser({ onEvent: ({ event, data, id }) => onEvent({ event: event ?? 'message', data, id }) });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
}
