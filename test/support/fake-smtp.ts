// A fake SMTP server for the email channel tests (the smtp-server package): accepts logins and mails, records each
// mail parsed with mailparser, and can be scripted to answer the next DATA with an SMTP error (451, 550, …).
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface FakeSmtpMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
}

export interface FakeSmtp {
  port: number;
  mails: FakeSmtpMail[];
  /** Successful logins so far (SMTP verify logs in too). */
  logins: number;
  /** Resolves with the mails once `count` have been accepted in all. */
  waitForMails(count: number): Promise<FakeSmtpMail[]>;
  /** The next `times` DATA commands are answered `code message` instead of accepted. */
  failNextData(code: number, message: string, times?: number): void;
  close(): Promise<void>;
}

export async function startFakeSmtp(options: { user?: string; password?: string } = {}): Promise<FakeSmtp> {
  const user = options.user ?? 'gateway@example.test';
  const password = options.password ?? 'smtp-secret';
  const mails: FakeSmtpMail[] = [];
  const failures: { code: number; message: string }[] = [];
  const listeners = new Set<() => void>();
  const state = { logins: 0 };

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username !== user || auth.password !== password) {
        callback(new Error('Invalid username or password'));
        return;
      }
      state.logins++;
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const failure = failures.shift();
        if (failure !== undefined) {
          callback(Object.assign(new Error(failure.message), { responseCode: failure.code }));
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
            mails.push({ from, to: session.envelope.rcptTo.map((rcpt) => rcpt.address), parsed });
            for (const listener of [...listeners]) listener();
            callback();
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('the fake SMTP server has no TCP port');

  return {
    port: address.port,
    mails,
    get logins() {
      return state.logins;
    },
    waitForMails(count) {
      return new Promise((resolve) => {
        const listener = () => {
          if (mails.length < count) return;
          listeners.delete(listener);
          resolve(mails.slice(0, count));
        };
        listeners.add(listener);
        listener();
      });
    },
    failNextData(code, message, times = 1) {
      for (let i = 0; i < times; i++) failures.push({ code, message });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
