// The HTTP replies an MCP session's transport holds open: the SDK never answers a cancelled request or one still open
// when its session closes (in JSON response mode), so the gateway ends those itself instead of leaving them hanging.
import type { ServerResponse } from 'node:http';

/** A tools/call in flight over one HTTP request. */
export interface InFlightCall {
  /** Aborted when the HTTP client hangs up before its answer. */
  readonly hangUp: AbortSignal;
  /** Ends the HTTP request without an answer (the client cancelled the call: nothing is owed). */
  drop(): void;
}

/** The open replies of one session, and the calls among them by JSON-RPC id. */
export interface OpenReplies {
  readonly calls: Map<string | number, InFlightCall>;
  readonly replies: Set<ServerResponse>;
}

export const openReplies = (): OpenReplies => ({ calls: new Map(), replies: new Set() });

/** Ends `raw` with `status` (and a REST-envelope body) unless it was answered already. */
export function endReply(raw: ServerResponse, status: number, error?: { code: string; message: string }): void {
  if (raw.writableEnded) return;
  if (!raw.headersSent) raw.writeHead(status, error === undefined ? {} : { 'content-type': 'application/json' });
  raw.end(error === undefined ? undefined : JSON.stringify({ error }));
}

/** The session closed (DELETE, idle, evicted, shutdown): requests still waiting are told it is gone. */
export function endAllReplies({ replies }: OpenReplies): void {
  for (const raw of replies)
    endReply(raw, 404, { code: 'not_found', message: 'MCP session ended before this request was answered' });
  replies.clear();
}
