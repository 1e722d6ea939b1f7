// A minimal fake IMAP4rev1 server over node:net for the email channel tests: one mailbox, LOGIN, SELECT, UID
// SEARCH/FETCH/STORE, NOOP, IDLE with `* N EXISTS` pushed when a test appends a message, and LOGOUT.
//
// It implements just what imapflow sends (run with `logger: false`): CAPABILITY, LOGIN, NAMESPACE, LIST/LSUB, SELECT/EXAMINE,
// UID SEARCH (UNSEEN, ALL), UID FETCH (UID FLAGS RFC822.SIZE BODY[] BODY[HEADER], PEEK or not), UID STORE ±FLAGS,
// NOOP, IDLE/DONE, LOGOUT. No ID, ENABLE, COMPRESS or STARTTLS is advertised, so imapflow never sends them; anything
// else is answered BAD and recorded. Commands are parsed with quoted strings, lists and synchronizing literals.
import { createServer, type Server, type Socket } from 'node:net';
import { readCommands, text, render, type Token } from './fake-imap-commands.js';

export interface FakeImapMessage {
  uid: number;
  flags: Set<string>;
  source: Buffer;
}

export interface FakeImapOptions {
  user?: string;
  password?: string;
  mailbox?: string;
}

export interface FakeImap {
  port: number;
  /** Every command line received (LOGIN's password replaced), in order, across connections. */
  commands: string[];
  messages: FakeImapMessage[];
  /** Adds a message to the mailbox; IDLE-ing sessions get `* N EXISTS` at once, others with their next command. */
  append(source: string | Buffer, flags?: readonly string[]): FakeImapMessage;
  /** Resolves once a session is in IDLE (already, or the next one). */
  waitForIdle(): Promise<void>;
  /** Resolves once `count` commands named `name` (e.g. 'UID STORE') have been received in all. */
  waitForCommand(name: string, count?: number): Promise<void>;
  /** Cuts every open connection (a dropped server). */
  dropConnections(): void;
  /** While true, LOGIN answers NO. */
  refuseLogins: boolean;
  /** Connections currently open. */
  openConnections(): number;
  /** Resolves once no connection is open (the server saw each one close). */
  waitForNoConnections(): Promise<void>;
  close(): Promise<void>;
}

const capabilities = 'IMAP4rev1 IDLE NAMESPACE UIDPLUS';
const uidValidity = 1_700_000_000;

interface Session {
  socket: Socket;
  selected: boolean;
  idleTag: string | undefined;
  /** The EXISTS count this session was last told; the server tells it the new one when it may. */
  toldExists: number;
}

export async function startFakeImap(options: FakeImapOptions = {}): Promise<FakeImap> {
  const user = options.user ?? 'gateway@example.test';
  const password = options.password ?? 'imap-secret';
  const mailboxName = options.mailbox ?? 'INBOX';
  const commands: string[] = [];
  const messages: FakeImapMessage[] = [];
  const sessions = new Set<Session>();
  const listeners = new Set<() => void>();
  let nextUid = 1;
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const waitUntil = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      const listener = () => {
        if (!check()) return;
        listeners.delete(listener);
        resolve();
      };
      listeners.add(listener);
      listener();
    });

  const server: Server = createServer((socket) => {
    const session: Session = { socket, selected: false, idleTag: undefined, toldExists: 0 };
    sessions.add(session);
    socket.on('close', () => {
      sessions.delete(session);
      notify();
    });
    socket.on('error', () => socket.destroy());
    socket.write(`* OK [CAPABILITY ${capabilities}] fake IMAP ready\r\n`);
    readCommands(socket, (tokens, line) => handle(session, tokens, line));
  });

  function send(session: Session, text: string | Buffer) {
    if (!session.socket.destroyed) session.socket.write(text);
  }

  function tellExists(session: Session) {
    if (!session.selected || session.toldExists === messages.length) return;
    session.toldExists = messages.length;
    send(session, `* ${messages.length} EXISTS\r\n`);
  }

  function handle(session: Session, tokens: Token[], line: string) {
    if (session.idleTag !== undefined) {
      if (line.trim().toUpperCase() === 'DONE') {
        send(session, `${session.idleTag} OK IDLE terminated\r\n`);
        session.idleTag = undefined;
      }
      return;
    }
    const [tag, first, ...rest] = tokens;
    if (typeof tag !== 'string' || typeof first !== 'string') {
      send(session, '* BAD unparsable command\r\n');
      return;
    }
    let name = first.toUpperCase();
    let args = rest;
    if (name === 'UID' && typeof rest[0] === 'string') {
      name = `UID ${rest[0].toUpperCase()}`;
      args = rest.slice(1);
    }
    commands.push(name === 'LOGIN' ? `LOGIN ${text(args[0])} ***` : `${name} ${args.map(render).join(' ')}`.trim());
    notify();
    const ok = (message = `${name} completed`) => {
      tellExists(session);
      send(session, `${tag} OK ${message}\r\n`);
    };
    switch (name) {
      case 'CAPABILITY':
        send(session, `* CAPABILITY ${capabilities}\r\n`);
        return ok();
      case 'LOGIN':
        if (refuse.value || text(args[0]) !== user || text(args[1]) !== password) {
          return send(session, `${tag} NO [AUTHENTICATIONFAILED] invalid credentials\r\n`);
        }
        return ok(`[CAPABILITY ${capabilities}] logged in`);
      case 'NAMESPACE':
        send(session, '* NAMESPACE (("" "/")) NIL NIL\r\n');
        return ok();
      case 'LIST':
      case 'LSUB': {
        // imapflow lists the mailbox it is about to open (and "" for the hierarchy delimiter).
        const pattern = text(args[1]);
        if (pattern === '') send(session, '* LIST (\\Noselect) "/" ""\r\n');
        else if (pattern === '*' || pattern.toUpperCase() === mailboxName.toUpperCase()) {
          send(session, `* LIST (\\HasNoChildren) "/" ${mailboxName}\r\n`);
        }
        return ok();
      }
      case 'SELECT':
      case 'EXAMINE':
        if (text(args[0]).toUpperCase() !== mailboxName.toUpperCase()) {
          return send(session, `${tag} NO no such mailbox\r\n`);
        }
        session.selected = true;
        session.toldExists = messages.length;
        send(
          session,
          '* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r\n' +
            '* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft \\*)] flags permitted\r\n' +
            `* ${messages.length} EXISTS\r\n* 0 RECENT\r\n` +
            `* OK [UIDVALIDITY ${uidValidity}] UIDs valid\r\n* OK [UIDNEXT ${nextUid}] predicted next UID\r\n`,
        );
        return ok(name === 'SELECT' ? '[READ-WRITE] SELECT completed' : '[READ-ONLY] EXAMINE completed');
      case 'NOOP':
        return ok();
      case 'IDLE':
        session.idleTag = tag;
        send(session, '+ idling\r\n');
        tellExists(session);
        notify();
        return;
      case 'UID SEARCH': {
        const found = messages.filter((message) => matchesSearch(message, args)).map((message) => message.uid);
        send(session, `* SEARCH${found.map((uid) => ` ${uid}`).join('')}\r\n`);
        return ok();
      }
      case 'UID FETCH': {
        const items = Array.isArray(args[1]) ? args[1] : args.slice(1);
        for (const message of inUidSet(text(args[0]))) {
          const peek = items.every((item) => !text(item).toUpperCase().startsWith('BODY['));
          if (!peek) message.flags.add('\\Seen');
          send(session, fetchResponse(message, items));
        }
        return ok();
      }
      case 'UID STORE': {
        const action = text(args[1]).toUpperCase();
        const flags = Array.isArray(args[2]) ? args[2].map(text) : args.slice(2).map(text);
        for (const message of inUidSet(text(args[0]))) {
          for (const flag of flags) {
            if (action.startsWith('+')) message.flags.add(flag);
            else if (action.startsWith('-')) message.flags.delete(flag);
          }
          if (!action.endsWith('.SILENT'))
            send(session, `* ${seq(message)} FETCH (UID ${message.uid} ${flagList(message)})\r\n`);
        }
        notify();
        return ok();
      }
      case 'LOGOUT':
        send(session, '* BYE logging out\r\n');
        send(session, `${tag} OK LOGOUT completed\r\n`);
        session.socket.end();
        return;
      default:
        send(session, `${tag} BAD ${name} is not implemented by the fake\r\n`);
    }
  }

  const seq = (message: FakeImapMessage) => messages.indexOf(message) + 1;
  const flagList = (message: FakeImapMessage) => `FLAGS (${[...message.flags].join(' ')})`;

  function fetchResponse(message: FakeImapMessage, items: Token[]): Buffer {
    const parts: (string | Buffer)[] = [`* ${seq(message)} FETCH (UID ${message.uid}`];
    for (const item of items) {
      const wanted = text(item).toUpperCase();
      if (wanted === 'FLAGS') parts.push(` ${flagList(message)}`);
      else if (wanted === 'RFC822.SIZE') parts.push(` RFC822.SIZE ${message.source.length}`);
      else if (wanted === 'BODY.PEEK[]' || wanted === 'BODY[]') parts.push(...literal('BODY[]', message.source));
      else if (wanted === 'BODY.PEEK[HEADER]' || wanted === 'BODY[HEADER]') {
        const end = message.source.indexOf('\r\n\r\n');
        parts.push(...literal('BODY[HEADER]', end < 0 ? message.source : message.source.subarray(0, end + 4)));
      }
    }
    parts.push(')\r\n');
    return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
  }

  function matchesSearch(message: FakeImapMessage, criteria: Token[]): boolean {
    return criteria.every((criterion) => {
      const key = text(criterion).toUpperCase();
      if (key === 'UNSEEN') return !message.flags.has('\\Seen');
      if (key === 'SEEN') return message.flags.has('\\Seen');
      return key === 'ALL';
    });
  }

  function inUidSet(set: string): FakeImapMessage[] {
    const highest = messages.reduce((max, message) => Math.max(max, message.uid), 0);
    const value = (part: string) => (part === '*' ? highest : Number(part));
    return messages.filter((message) =>
      set.split(',').some((range) => {
        const [from = '', to = from] = range.split(':');
        const [low, high] = [value(from), value(to)].sort((a, b) => a - b);
        return low !== undefined && high !== undefined && message.uid >= low && message.uid <= high;
      }),
    );
  }

  const refuse = { value: false };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fake IMAP server has no TCP port');

  return {
    port: address.port,
    commands,
    messages,
    append(source, flags = []) {
      const message: FakeImapMessage = {
        uid: nextUid++,
        flags: new Set(flags),
        source: Buffer.isBuffer(source) ? source : Buffer.from(source.replace(/\r?\n/g, '\r\n')),
      };
      messages.push(message);
      for (const session of sessions) if (session.idleTag !== undefined) tellExists(session);
      notify();
      return message;
    },
    waitForIdle: () => waitUntil(() => [...sessions].some((session) => session.idleTag !== undefined)),
    waitForCommand: (name, count = 1) =>
      waitUntil(() => commands.filter((command) => command.startsWith(`${name} `) || command === name).length >= count),
    dropConnections() {
      for (const session of sessions) session.socket.destroy();
    },
    get refuseLogins() {
      return refuse.value;
    },
    set refuseLogins(value: boolean) {
      refuse.value = value;
    },
    openConnections: () => sessions.size,
    waitForNoConnections: () => waitUntil(() => sessions.size === 0),
    async close() {
      for (const session of sessions) session.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function literal(name: string, bytes: Buffer): (string | Buffer)[] {
  return [` ${name} {${bytes.length}}\r\n`, bytes];
}
