// Terminal output as plain text: ANSI/OSC escapes and lone control characters removed, CRLF made LF, split escapes held.
import { stripVTControlCharacters } from 'node:util';

/** An escape sequence still unfinished at a chunk's end is held for the next chunk up to this many characters. */
const MAX_HELD_ESCAPE_CHARS = 64;

// Control characters other than \n and \t (and \r, handled before), with DEL and the C1 range.
const LONE_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Cleans a pty's output chunk by chunk; an escape or CR split across chunks is cleaned once whole. */
export interface OutputCleaner {
  push(chunk: string): string;
  /** Whatever is held, cleaned (the shell exited, nothing more will come). */
  flush(): string;
}

export function createOutputCleaner(): OutputCleaner {
  let held = '';
  return {
    push(chunk) {
      const text = held + chunk;
      const cut = unfinishedTail(text);
      held = text.slice(cut);
      return clean(text.slice(0, cut));
    },
    flush() {
      const text = held;
      held = '';
      return clean(text);
    },
  };
}

/** Where an unfinished escape (or a CR that may be half of CRLF) starts at the end of `text`; its length when none. */
function unfinishedTail(text: string): number {
  if (text.endsWith('\r')) return text.length - 1;
  const escape = Math.max(text.lastIndexOf('\u001b'), text.lastIndexOf('\u009b'));
  if (escape < 0 || text.length - escape > MAX_HELD_ESCAPE_CHARS) return text.length;
  return escapeFinished(text.slice(escape)) ? text.length : escape;
}

/** Whether the escape sequence `tail` starts with is complete (ECMA-48: CSI, OSC/DCS strings, two- and three-byte escapes). */
function escapeFinished(tail: string): boolean {
  const csi = tail.startsWith('\u009b') ? 1 : tail.startsWith('\u001b[') ? 2 : 0;
  if (csi > 0) return /^[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]/.test(tail.slice(csi));
  const kind = tail[1];
  if (kind === undefined) return false;
  // OSC, DCS, SOS, PM and APC strings end with BEL or ST (ESC \).
  if (']PX^_'.includes(kind)) return /\u0007|\u001b\\/.test(tail.slice(2));
  // ESC, any intermediates, then a final byte.
  return /^[\u0020-\u002f]*[\u0030-\u007e]/.test(tail.slice(1));
}

export function clean(text: string): string {
  return stripVTControlCharacters(text).replace(/\r\n/g, '\n').replace(/\r/g, '').replace(LONE_CONTROL, '');
}
