// A drive's output kept for reading: at most `capacity` characters, older ones dropped, read through absolute cursors.

/** Leads a read whose reader missed output the ring no longer holds. */
export const droppedMarker = (chars: number) => `[… ${chars} characters of earlier output dropped …]\n`;

export interface RingSlice {
  text: string;
  /** The cursor after `text` (an absolute character offset). */
  next: number;
  /** More output waits past `next`. */
  truncated: boolean;
  /** Output between the reader's cursor and the oldest kept character was dropped (a marker leads `text`). */
  dropped: boolean;
}

export interface OutputRing {
  append(text: string): void;
  /** Absolute offset after the newest character. */
  readonly end: number;
  /** Absolute offset of the oldest kept character (0 until the ring first dropped output). */
  readonly start: number;
  /** Up to `maxChars` characters (the marker included) from `cursor` on. */
  readFrom(cursor: number, maxChars: number): RingSlice;
  /** The newest `maxChars` characters, cursors untouched. */
  tail(maxChars: number): { text: string; truncated: boolean; dropped: boolean };
}

export function createOutputRing(capacity: () => number): OutputRing {
  // Chunks as the pty gave them, so appending and dropping never copy the whole ring.
  const chunks: string[] = [];
  let start = 0;
  let size = 0;

  function trim(): void {
    const cap = capacity();
    while (size > cap) {
      const first = chunks[0];
      if (first === undefined) return;
      const excess = size - cap;
      if (first.length <= excess) {
        chunks.shift();
        size -= first.length;
        start += first.length;
      } else {
        chunks[0] = first.slice(excess);
        size -= excess;
        start += excess;
      }
    }
  }

  function slice(from: number, to: number): string {
    let offset = start;
    let out = '';
    for (const chunk of chunks) {
      const chunkEnd = offset + chunk.length;
      if (chunkEnd > from && offset < to) out += chunk.slice(Math.max(0, from - offset), to - offset);
      offset = chunkEnd;
      if (offset >= to) break;
    }
    return out;
  }

  return {
    append(text) {
      if (text === '') return;
      chunks.push(text);
      size += text.length;
      trim();
    },
    get end() {
      return start + size;
    },
    get start() {
      return start;
    },
    readFrom(cursor, maxChars) {
      const end = start + size;
      const dropped = cursor < start;
      const marker = dropped ? droppedMarker(start - cursor) : '';
      const from = Math.max(cursor, start);
      const to = Math.min(end, from + Math.max(0, maxChars - marker.length));
      return { text: (marker + slice(from, to)).slice(0, maxChars), next: to, truncated: to < end, dropped };
    },
    tail(maxChars) {
      const end = start + size;
      const from = Math.max(start, end - maxChars);
      return { text: slice(from, end), truncated: from > start, dropped: start > 0 };
    },
  };
}
