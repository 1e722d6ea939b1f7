// Reads an SSE response frame by frame (fetch body), for tests of the /api streams.

export interface ReadFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comments: string[];
}

export function parseFrame(block: string): ReadFrame {
  const frame: ReadFrame = { comments: [] };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
    else if (line.startsWith('id: ')) frame.id = line.slice(4);
    else if (line.startsWith('event: ')) frame.event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
    else if (line.startsWith('retry: ')) frame.retry = Number(line.slice(7));
  }
  if (data.length > 0) frame.data = data.join('\n');
  return frame;
}

export interface SseReader {
  status: number;
  headers: Headers;
  /** The next frame, or undefined when the stream ended. */
  next(timeoutMs?: number): Promise<ReadFrame | undefined>;
  /** Frames until one matches (inclusive), or the stream ends. */
  until(match: (frame: ReadFrame) => boolean, timeoutMs?: number): Promise<ReadFrame[]>;
  /** The JSON body of a refused (non-200) request. */
  json(): Promise<unknown>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let isDone = false;

  async function next(timeoutMs = 5000): Promise<ReadFrame | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parseFrame(block);
      }
      if (isDone || reader === undefined) return undefined;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting for an SSE frame');
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('timed out waiting for an SSE frame')), remaining);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) isDone = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
    }
  }

  return {
    status: response.status,
    headers: response.headers,
    next,
    async until(match, timeoutMs = 5000) {
      const frames: ReadFrame[] = [];
      for (;;) {
        const frame = await next(timeoutMs);
        if (frame === undefined) return frames;
        frames.push(frame);
        if (match(frame)) return frames;
      }
    },
    json: async () => {
      let text = '';
      for (;;) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      return JSON.parse(text) as unknown;
    },
    close: () => controller.abort(),
  };
}
