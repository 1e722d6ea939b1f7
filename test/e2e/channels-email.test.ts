// Channels end to end over email (imapflow against a fake IMAP server, nodemailer against a fake SMTP server): a mail
// from an allowed sender is answered in its thread by the agent, a reply to that answer continues the same session,
// and a sender not on the allow-list gets nothing and is counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeImap, type FakeImap } from '../support/fake-imap.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startFakeSmtp, type FakeSmtp } from '../support/fake-smtp.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const GATEWAY = 'agent@example.test';
const ALICE = 'alice@example.test';

function mail(headers: { from: string; messageId: string; subject: string; inReplyTo?: string }, body: string): string {
  return [
    `From: ${headers.from}`,
    `To: ${GATEWAY}`,
    `Subject: ${headers.subject}`,
    `Message-ID: ${headers.messageId}`,
    ...(headers.inReplyTo === undefined
      ? []
      : [`In-Reply-To: ${headers.inReplyTo}`, `References: ${headers.inReplyTo}`]),
    'Date: Sat, 28 Nov 2026 10:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '',
  ].join('\r\n');
}

describe('e2e: an email channel connection', () => {
  let llm: FakeLlm;
  let imap: FakeImap;
  let smtp: FakeSmtp;
  let harness: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    imap = await startFakeImap({ user: GATEWAY, password: 'imap-secret' });
    smtp = await startFakeSmtp({ user: GATEWAY, password: 'smtp-secret' });
    const server = (port: number, password: string) => ({
      host: '127.0.0.1',
      port,
      secure: false,
      user: GATEWAY,
      password,
    });
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { mailer: { name: 'Mailer', provider: 'fake', model: 'fake-model' } },
      channels: {
        mail: {
          kind: 'email',
          agentId: 'mailer',
          from: GATEWAY,
          imap: server(imap.port, 'imap-secret'),
          smtp: server(smtp.port, 'smtp-secret'),
          allow: { senders: [ALICE] },
        },
      },
    });
    await imap.waitForIdle();
  });
  afterAll(async () => {
    await harness?.close();
    await smtp?.close();
    await imap?.close();
    await llm?.close();
  });

  const admin = async (method: string, params?: unknown) => {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as Record<string, unknown>;
  };

  it('answers a mail in its thread, and a reply to the answer continues the same session', async () => {
    llm.script({ text: 'The build is green.' });
    imap.append(mail({ from: ALICE, messageId: '<q1@example.test>', subject: 'Build status' }, 'Is the build green?'));
    const [answer] = await smtp.waitForMails(1);
    expect(answer?.to).toEqual([ALICE]);
    expect(answer?.parsed.subject).toBe('Re: Build status');
    expect(answer?.parsed.inReplyTo).toBe('<q1@example.test>');
    expect(answer?.parsed.text?.trim()).toBe('The build is green.');

    llm.script({ text: 'It took four minutes.' });
    imap.append(
      mail(
        { from: ALICE, messageId: '<q2@example.test>', subject: 'Re: Build status', inReplyTo: '<q1@example.test>' },
        'How long did it take?\r\n\r\nOn Sat, 28 Nov 2026 the agent wrote:\r\n> The build is green.',
      ),
    );
    const mails = await smtp.waitForMails(2);
    expect(mails[1]?.parsed.text?.trim()).toBe('It took four minutes.');
    // The second turn saw the first exchange: one session for the thread's sender and chat; the quoted lines were cut.
    const second = llm.chatRequests().at(-1)?.body as { messages: { role: string; content: unknown }[] };
    const texts = second.messages.map((message) => String(message.content));
    expect(texts).toContain('Is the build green?');
    expect(texts.at(-1)).toBe('How long did it take?');
    expect(texts.some((text) => text.includes('> The build is green.'))).toBe(false);
  });

  it('ignores a sender not on the allow-list and counts it', async () => {
    const requests = llm.chatRequests().length;
    const sent = smtp.mails.length;
    imap.append(mail({ from: 'mallory@example.test', messageId: '<m1@example.test>', subject: 'Hi' }, 'Do my bidding'));
    await expect
      .poll(
        async () => {
          const { channels } = (await admin('channels.list')) as { channels: { id: string; ignored: number }[] };
          return channels.find((channel) => channel.id === 'mail')?.ignored;
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(llm.chatRequests()).toHaveLength(requests);
    expect(smtp.mails).toHaveLength(sent);
  });
});
