// A capped tail of a stdio MCP server's stderr, kept for its status instead of being inherited by the gateway.
import type { Stream } from 'node:stream';

/** Characters of a server's stderr kept, the newest; older output is dropped. */
export const STDERR_MAX_CHARS = 8_192;

export interface StderrRing {
  text(): string;
}

/** Follows `stream` (the child's piped stderr) and keeps its last STDERR_MAX_CHARS characters. */
export function followStderr(stream: Stream | null): StderrRing {
  let tail = '';
  stream?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_MAX_CHARS);
  });
  return { text: () => tail };
}
