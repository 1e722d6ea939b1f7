// Email out: replies threaded (In-Reply-To, References, "Re: <subject>") through nodemailer to SMTP; SMTP 4xx and
// network failures are retryable DeliveryFailures, 5xx are not; approvals asked and settled by mail; channels.test.
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryFailure } from '../../../src/channels/types.js';
import { freePort } from '../../support/free-port.js';
import { gatewayAddress, mail, startEmailFixture, type EmailFixture } from './email-fixture.js';

let fixture: EmailFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const signal = () => new AbortController().signal;

async function failureOf(work: Promise<unknown>): Promise<DeliveryFailure> {
  const error: unknown = await work.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof Error) || !('retryable' in error) || typeof error.retryable !== 'boolean') {
    throw new Error(`expected a DeliveryFailure, got ${String(error)}`);
  }
  return { name: error.name, message: error.message, retryable: error.retryable };
}

describe('email adapter, mail out', () => {
  it('answers in the thread: To the sender, From the gateway, Re: the subject, In-Reply-To and References set', async () => {
    fixture = await startEmailFixture();
    fixture.imap.append(
      mail({
        from: 'ann@example.test',
        subject: 'Plans for Friday',
        messageId: '<m1@example.test>',
        body: 'What now?',
      }),
    );
    await fixture.start();
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    const inbound = fixture.events.messages[0];
    const sent = await fixture.adapter.send(
      { chatId: 'ann@example.test', text: 'Go to the park.', threadId: inbound?.threadId, replyTo: inbound?.messageId },
      signal(),
    );
    const [received] = await fixture.smtp.waitForMails(1);
    expect(received?.from).toBe(gatewayAddress);
    expect(received?.to).toEqual(['ann@example.test']);
    expect(received?.parsed.subject).toBe('Re: Plans for Friday');
    expect(received?.parsed.text?.trim()).toBe('Go to the park.');
    expect(received?.parsed.inReplyTo).toBe('<m1@example.test>');
    expect(received?.parsed.references).toBe('<m1@example.test>');
    expect(received?.parsed.messageId).toBe(sent.messageId);
  });

  it('keeps one "Re:" for a thread that is already a reply, and names a subject for mail outside any thread', async () => {
    fixture = await startEmailFixture();
    fixture.imap.append(
      mail({
        from: 'ann@example.test',
        subject: 'RE: Plans',
        messageId: '<m2@example.test>',
        references: '<root@example.test>',
        body: 'More?',
      }),
    );
    await fixture.start();
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    await fixture.adapter.send(
      { chatId: 'ann@example.test', text: 'Yes.', threadId: '<root@example.test>', replyTo: '<m2@example.test>' },
      signal(),
    );
    await fixture.adapter.send({ chatId: 'new@example.test', text: 'Daily check-in' }, signal());
    const [reply, fresh] = await fixture.smtp.waitForMails(2);
    expect(reply?.parsed.subject).toBe('RE: Plans');
    expect(reply?.parsed.references).toEqual(['<root@example.test>', '<m2@example.test>']);
    expect(fresh?.parsed.subject).toBe('Message from your agent');
    expect(fresh?.parsed.inReplyTo).toBeUndefined();
  });

  it('reports SMTP 4xx as a retryable DeliveryFailure and 5xx as a final one', async () => {
    fixture = await startEmailFixture();
    fixture.smtp.failNextData(451, 'Try again later');
    const transient = await failureOf(fixture.adapter.send({ chatId: 'ann@example.test', text: 'one' }, signal()));
    expect(transient).toMatchObject({ name: 'DeliveryFailure', retryable: true });
    expect(transient.message).toContain('451');
    fixture.smtp.failNextData(550, 'Mailbox unavailable');
    const final = await failureOf(fixture.adapter.send({ chatId: 'ann@example.test', text: 'two' }, signal()));
    expect(final).toMatchObject({ name: 'DeliveryFailure', retryable: false });
    expect(final.message).toContain('550');
    await fixture.adapter.send({ chatId: 'ann@example.test', text: 'three' }, signal());
    expect((await fixture.smtp.waitForMails(1)).map((sent) => sent.parsed.text?.trim())).toEqual(['three']);
  });

  it('reports an unreachable SMTP server as retryable, and an aborted send as retryable without sending', async () => {
    const closedPort = await freePort();
    fixture = await startEmailFixture((config) => ({ ...config, smtp: { ...config.smtp, port: closedPort } }));
    const unreachable = await failureOf(fixture.adapter.send({ chatId: 'ann@example.test', text: 'hi' }, signal()));
    expect(unreachable.retryable).toBe(true);
    const aborted = new AbortController();
    aborted.abort();
    expect(
      await failureOf(fixture.adapter.send({ chatId: 'ann@example.test', text: 'hi' }, aborted.signal)),
    ).toMatchObject({ retryable: true });
  });

  it('reports wrong SMTP credentials as a final failure', async () => {
    fixture = await startEmailFixture((config) => ({ ...config, smtp: { ...config.smtp, password: 'wrong' } }));
    const refused = await failureOf(fixture.adapter.send({ chatId: 'ann@example.test', text: 'hi' }, signal()));
    expect(refused.retryable).toBe(false);
    expect(refused.message).toContain('535');
    expect(fixture.smtp.mails).toEqual([]);
  });

  it('asks for approval by mail (reply "approve <code>" or "deny <code>") and settles it with a follow-up in the thread', async () => {
    fixture = await startEmailFixture();
    const prompt = {
      chatId: 'ops@example.test',
      threadId: '<root@example.test>',
      requestId: 'req-1',
      code: '7Q2K',
      toolName: 'shell.exec',
      summary: 'rm -rf /tmp/cache',
    };
    const asked = await fixture.adapter.askApproval(prompt, signal());
    await fixture.adapter.settleApproval({ ...prompt, messageId: asked.messageId, approved: true, by: 'alice' });
    const [request, settled] = await fixture.smtp.waitForMails(2);
    expect(request?.to).toEqual(['ops@example.test']);
    expect(request?.parsed.subject).toBe('Approval needed: shell.exec');
    expect(request?.parsed.messageId).toBe(asked.messageId);
    expect(request?.parsed.inReplyTo).toBe('<root@example.test>');
    const lines = request?.parsed.text?.split('\n').map((line) => line.trim()) ?? [];
    expect(lines).toContain('approve 7Q2K');
    expect(lines).toContain('deny 7Q2K');
    expect(request?.parsed.text).toContain('rm -rf /tmp/cache');
    expect(settled?.parsed.subject).toBe('Re: Approval needed: shell.exec');
    expect(settled?.parsed.inReplyTo).toBe(asked.messageId);
    expect(settled?.parsed.text).toContain('Approved by alice');
  });

  it('says what it is: kind email, 100 000 characters a mail, no typing indicator', async () => {
    fixture = await startEmailFixture();
    expect(fixture.adapter.kind).toBe('email');
    expect(fixture.adapter.maxMessageChars).toBe(100_000);
    await expect(fixture.adapter.typing('ann@example.test')).resolves.toBeUndefined();
    expect(fixture.adapter.routes).toBeUndefined();
  });

  it('tests the account with an SMTP login (verify) and an IMAP NOOP; a refused IMAP login fails the test', async () => {
    fixture = await startEmailFixture();
    const result = await fixture.adapter.test(signal());
    expect(result.detail).toContain('SMTP');
    expect(result.detail).toContain('NOOP');
    expect(fixture.smtp.logins).toBe(1);
    expect(fixture.imap.commands).toContain('NOOP');
    expect(fixture.smtp.mails).toEqual([]);
    fixture.imap.refuseLogins = true;
    const failed = await failureOf(fixture.adapter.test(signal()));
    expect(failed.message).toContain('IMAP');
  });
});
