// The fake IMAP server's command reader: CRLF lines, synchronizing literals ({n} answered `+ go ahead`), and a tokenizer
// for atoms, quoted strings and parenthesized lists (brackets stay inside an atom: BODY.PEEK[HEADER]).
import type { Socket } from 'node:net';

export type Token = string | Buffer | Token[];

export function text(token: Token | undefined): string {
  if (token === undefined) return '';
  if (Buffer.isBuffer(token)) return token.toString('utf8');
  if (Array.isArray(token)) return `(${token.map(text).join(' ')})`;
  return token;
}

export function render(token: Token): string {
  if (Buffer.isBuffer(token)) return `{${token.length}}`;
  return text(token);
}

/**
 * Reads CRLF-terminated command lines, answering `+ go ahead` to a synchronizing literal `{n}` and reading its n
 * bytes before the rest of the line; calls `onCommand` with the parsed tokens and the raw first line.
 */
export function readCommands(socket: Socket, onCommand: (tokens: Token[], line: string) => void) {
  let buffer = Buffer.alloc(0);
  let pending: (string | Buffer)[] = [];
  let literalBytes: number | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (literalBytes !== undefined) {
        if (buffer.length < literalBytes) return;
        pending.push(buffer.subarray(0, literalBytes));
        buffer = buffer.subarray(literalBytes);
        literalBytes = undefined;
        continue;
      }
      const end = buffer.indexOf('\r\n');
      if (end < 0) return;
      const line = buffer.subarray(0, end).toString('utf8');
      buffer = buffer.subarray(end + 2);
      const announced = /\{(\d+)\+?\}$/.exec(line);
      if (announced?.[1] !== undefined) {
        pending.push(line.slice(0, announced.index));
        literalBytes = Number(announced[1]);
        if (!announced[0].includes('+')) socket.write('+ go ahead\r\n');
        continue;
      }
      pending.push(line);
      const parts = pending;
      pending = [];
      onCommand(tokenize(parts), typeof parts[0] === 'string' ? parts[0] : '');
    }
  });
}

function tokenize(parts: readonly (string | Buffer)[]): Token[] {
  const root: Token[] = [];
  const stack: Token[][] = [root];
  const top = () => stack[stack.length - 1] ?? root;
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      top().push(part);
      continue;
    }
    let i = 0;
    while (i < part.length) {
      const char = part[i];
      if (char === ' ') i++;
      else if (char === '(') {
        const list: Token[] = [];
        top().push(list);
        stack.push(list);
        i++;
      } else if (char === ')') {
        if (stack.length > 1) stack.pop();
        i++;
      } else if (char === '"') {
        let value = '';
        i++;
        while (i < part.length && part[i] !== '"') {
          if (part[i] === '\\') i++;
          value += part[i] ?? '';
          i++;
        }
        top().push(value);
        i++;
      } else {
        // An atom runs to a space or a closing paren; brackets belong to it (BODY.PEEK[HEADER]).
        let end = i;
        let depth = 0;
        while (end < part.length) {
          const c = part[end];
          if (c === '[') depth++;
          else if (c === ']') depth--;
          else if (depth === 0 && (c === ' ' || c === ')' || c === '(')) break;
          end++;
        }
        top().push(part.slice(i, end));
        i = end;
      }
    }
  }
  return root;
}
