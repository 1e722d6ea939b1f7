// Mail in through imapflow: connect, open the mailbox, fetch what is unseen, then IDLE and fetch each new mail by UID
// as the server announces it (marking it \Seen); reconnects with backoff after a drop (health degraded meanwhile).
import { ImapFlow } from 'imapflow';
import type { EmailChannelConfig } from './email-config.js';
import type { Logger } from '../../obs/index.js';
import type { ChannelHealth } from '../types.js';

export interface FetchedMail {
  uid: number;
  uidValidity: bigint;
  /** The whole mail, or only its header when it is larger than the channel takes (`oversizedBytes` set). */
  source: Buffer;
  oversizedBytes?: number;
}

export interface ImapInboxDeps {
  log: Logger;
  /** Called once per new mail, in UID order; the mail is marked \Seen after it resolves (or throws). */
  onMail(mail: FetchedMail): Promise<void>;
  onHealth(state: ChannelHealth, error?: string): void;
}

export interface ImapInbox {
  /** Starts the connection loop; resolves once the first attempt connected or failed (the loop goes on either way). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Reconnect waits: doubling from the first to the last, reset by a connection that got as far as IDLE. */
const reconnectFirstMs = 1_000;
const reconnectMaxMs = 60_000;
/**
 * imapflow enters IDLE this long after the last command; the server only announces new mail once IDLE runs, so
 * imapflow's 15 s default would delay the first mail after each fetch. Fetch sequences run back to back anyway.
 */
const autoIdleDelayMs = 1_000;
/** IDLE is restarted this often: servers end an IDLE after 30 minutes at the earliest (RFC 2177 asks for < 29). */
const maxIdleMs = 10 * 60_000;
/** How long stop() waits for a polite LOGOUT before it closes the socket. */
const logoutWaitMs = 2_000;
/** Mails whose UID was handed on are remembered this far back, so a reconnect before \Seen stuck does not repeat one. */
const rememberedUids = 1_000;

/**
 * A mail larger than this is not fetched whole: an attachment at the channel's cap, base64 encoded (4/3), with
 * room for a second one, the text at 4 bytes a character, and the headers.
 */
export function maxMailBytes(config: EmailChannelConfig): number {
  return 2 * config.maxAttachmentBytes + 4 * config.maxInboundChars + 262_144;
}

export function imapClient(config: EmailChannelConfig): ImapFlow {
  const literalCap = maxMailBytes(config) + 1_048_576;
  return new ImapFlow({
    host: config.imap.host,
    port: config.imap.port,
    secure: config.imap.secure,
    auth: { user: config.imap.user, pass: config.imap.password },
    logger: false,
    autoIdleDelay: autoIdleDelayMs,
    maxIdleTime: maxIdleMs,
    // A hostile or broken server cannot make the gateway buffer more than one mail the channel would take.
    maxLiteralSize: literalCap,
    maxResponseSize: 2 * literalCap,
  });
}

export function createImapInbox(config: EmailChannelConfig, deps: ImapInboxDeps): ImapInbox {
  const { log } = deps;
  const mailCap = maxMailBytes(config);
  const handedOn = new Set<string>();
  let stopped = false;
  let client: ImapFlow | undefined;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let draining: Promise<void> | undefined;
  let drainAgain = false;

  async function fetchUnseen(connection: ImapFlow, uidValidity: bigint): Promise<void> {
    const uids = (await connection.search({ seen: false }, { uid: true })) || [];
    for (const uid of uids.sort((a, b) => a - b)) {
      if (stopped || !connection.usable) return;
      const key = `${uidValidity}:${uid}`;
      if (!handedOn.has(key)) {
        const sized = await connection.fetchOne(String(uid), { uid: true, size: true }, { uid: true });
        const size = sized === false ? undefined : sized.size;
        if (size === undefined) continue;
        const oversized = size > mailCap;
        const fetched = await connection.fetchOne(
          String(uid),
          oversized ? { uid: true, headers: true } : { uid: true, source: true },
          { uid: true },
        );
        const source = fetched === false ? undefined : oversized ? fetched.headers : fetched.source;
        if (source === undefined) continue;
        remember(key);
        await deps
          .onMail({ uid, uidValidity, source, ...(oversized ? { oversizedBytes: size } : {}) })
          .catch((error: unknown) =>
            log.warn({ error: errorText(error), uid }, 'email: an inbound mail could not be read'),
          );
      }
      await connection.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    }
  }

  function remember(key: string) {
    handedOn.add(key);
    if (handedOn.size <= rememberedUids) return;
    const oldest = handedOn.values().next();
    if (oldest.done !== true) handedOn.delete(oldest.value);
  }

  /** One fetch pass at a time; an announcement during a pass runs one more pass after it. */
  function drain(connection: ImapFlow, uidValidity: bigint): Promise<void> {
    if (draining !== undefined) {
      drainAgain = true;
      return draining;
    }
    const pass = async () => {
      do {
        drainAgain = false;
        await fetchUnseen(connection, uidValidity);
      } while (drainAgain && !stopped && connection.usable);
    };
    draining = pass().finally(() => {
      draining = undefined;
    });
    return draining;
  }

  /** One connection, from connect to close; resolves with why it ended (undefined: stop()). */
  async function session(connection: ImapFlow, connected: () => void): Promise<string | undefined> {
    let lastError: string | undefined;
    const closed = new Promise<void>((resolve) => connection.once('close', () => resolve()));
    connection.on('error', (error: unknown) => {
      lastError = errorText(error);
    });
    await connection.connect();
    const mailbox = await connection.mailboxOpen(config.mailbox);
    connection.on('exists', () => {
      drain(connection, mailbox.uidValidity).catch((error: unknown) => {
        log.warn({ error: errorText(error) }, 'email: fetching new mail failed');
      });
    });
    connected();
    await drain(connection, mailbox.uidValidity);
    await closed;
    return stopped ? undefined : (lastError ?? 'the IMAP connection closed');
  }

  async function run(firstAttempt: () => void): Promise<void> {
    let failures = 0;
    while (!stopped) {
      const connection = imapClient(config);
      client = connection;
      let reason: string | undefined;
      try {
        reason = await session(connection, () => {
          failures = 0;
          deps.onHealth('connected');
          firstAttempt();
        });
      } catch (error) {
        reason = errorText(error);
      } finally {
        connection.close();
        await draining?.catch(() => undefined);
      }
      if (stopped || reason === undefined) break;
      failures++;
      log.warn({ failures, reason }, 'email: the IMAP connection failed; reconnecting');
      deps.onHealth('degraded', reason);
      firstAttempt();
      await pause(Math.min(reconnectMaxMs, reconnectFirstMs * 2 ** (failures - 1)));
    }
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  }

  return {
    start() {
      if (loop !== undefined) return Promise.resolve();
      stopped = false;
      deps.onHealth('connecting');
      return new Promise<void>((resolve) => {
        // stop() during the first attempt ends the loop before it connected or failed: start resolves then too.
        loop = run(resolve)
          .catch((error: unknown) => log.error({ err: error }, 'email: the IMAP loop ended unexpectedly'))
          .finally(resolve);
      });
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      const connection = client;
      if (connection?.usable === true) {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            connection.logout().catch(() => undefined),
            new Promise<void>((resolve) => {
              timer = setTimeout(resolve, logoutWaitMs);
              timer.unref();
            }),
          ]);
        } finally {
          clearTimeout(timer);
        }
      }
      connection?.close();
      await loop;
      loop = undefined;
      client = undefined;
      deps.onHealth('disconnected');
    },
  };
}

/** An imapflow error as health and logs show it: the server's response code (AUTHENTICATIONFAILED) and text. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const serverCode: unknown = Reflect.get(error, 'serverResponseCode');
  const code: unknown = Reflect.get(error, 'code');
  const response: unknown = Reflect.get(error, 'responseText');
  const detail = typeof response === 'string' && response !== '' ? `${error.message}: ${response}` : error.message;
  const label = typeof serverCode === 'string' ? serverCode : typeof code === 'string' ? code : undefined;
  return label === undefined ? detail : `${label}: ${detail}`;
}
