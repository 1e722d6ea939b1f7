// Email in: unseen mail at start and new mail announced during IDLE become messages (one chat per sender, threads by
// References / In-Reply-To / Message-ID, quoted reply cut), are marked \Seen; approval replies are answers; robots ignored.
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { mail, startEmailFixture, type EmailFixture } from './email-fixture.js';

let fixture: EmailFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('email adapter, mail in', () => {
  it('delivers mail that was unseen at start, marks it \\Seen, and leaves mail already seen alone', async () => {
    fixture = await startEmailFixture();
    const seen = fixture.imap.append(mail({ from: 'old@example.test', messageId: '<old@x>', body: 'read before' }), [
      '\\Seen',
    ]);
    const unseen = fixture.imap.append(
      mail({
        from: 'Ann Example <Ann@Example.TEST>',
        subject: 'Plans',
        messageId: '<m1@example.test>',
        body: 'Hi agent',
      }),
    );
    await fixture.start();
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    expect(fixture.events.messages[0]).toEqual({
      chatId: 'ann@example.test',
      senderId: 'ann@example.test',
      messageId: '<m1@example.test>',
      threadId: '<m1@example.test>',
      text: 'Hi agent',
      attachments: [],
      receivedAt: 1_700_000_000_000,
    });
    await fixture.imap.waitForCommand('UID STORE');
    expect([...unseen.flags]).toContain('\\Seen');
    expect([...seen.flags]).toEqual(['\\Seen']);
    expect(fixture.imap.commands).toContain(`UID STORE ${unseen.uid} +FLAGS (\\Seen)`);
  });

  it('fetches a mail announced during IDLE by its UID and delivers it', async () => {
    fixture = await startEmailFixture();
    await fixture.start();
    const arrived = fixture.imap.append(mail({ from: 'bob@example.test', messageId: '<n1@x>', body: 'New one' }));
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    expect(fixture.events.messages[0]?.text).toBe('New one');
    expect(fixture.imap.commands).toContain(`UID FETCH ${arrived.uid} (UID BODY.PEEK[])`);
    await fixture.imap.waitForCommand('UID STORE');
    expect([...arrived.flags]).toContain('\\Seen');
  });

  it('threads by the first References id, else In-Reply-To, and cuts the quoted original from a reply', async () => {
    fixture = await startEmailFixture();
    fixture.imap.append(
      mail({
        from: 'ann@example.test',
        subject: 'Re: Plans',
        messageId: '<r2@example.test>',
        inReplyTo: '<g1@gateway>',
        references: '<root@example.test> <g1@gateway>',
        body: [
          'Sounds good, go ahead.',
          '',
          'On Tue, Nov 14, 2023 at 10:00 PM Gateway <',
          'gateway@example.test> wrote:',
          '> What should I do?',
          '> Plan A or B',
        ].join('\n'),
      }),
    );
    fixture.imap.append(
      mail({
        from: 'cy@example.test',
        messageId: '<r3@example.test>',
        inReplyTo: '<g2@gateway>',
        body: 'Yes\n> quoted line\nthanks\n\nOn Mon, 13 Nov 2023, Gateway <gateway@example.test> wrote:\nold text',
      }),
    );
    await fixture.start();
    await fixture.events.until(() => fixture?.events.messages.length === 2);
    const [first, second] = fixture.events.messages;
    expect(first).toMatchObject({ threadId: '<root@example.test>', text: 'Sounds good, go ahead.' });
    expect(second).toMatchObject({ threadId: '<g2@gateway>', text: 'Yes\nthanks' });
  });

  it('hands attachments on by kind (audio/* is audio) with a fetch cut at the byte cap', async () => {
    fixture = await startEmailFixture();
    const source = await new MailComposer({
      from: 'dee@example.test',
      to: 'gateway@example.test',
      subject: 'Voice note',
      messageId: '<a1@example.test>',
      text: 'Listen to this',
      attachments: [
        { filename: 'note.ogg', content: Buffer.alloc(2_000, 7), contentType: 'audio/ogg' },
        { filename: 'plan.pdf', content: Buffer.from('%PDF-1.4 plan'), contentType: 'application/pdf' },
      ],
    })
      .compile()
      .build();
    fixture.imap.append(source);
    await fixture.start();
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    const [voice, pdf] = fixture.events.messages[0]?.attachments ?? [];
    expect(voice).toMatchObject({ kind: 'audio', mimeType: 'audio/ogg', name: 'note.ogg', bytes: 2_000 });
    expect(pdf).toMatchObject({ kind: 'file', mimeType: 'application/pdf', name: 'plan.pdf' });
    const cut = await voice?.fetch(500, new AbortController().signal);
    expect(cut?.length).toBe(500);
    expect(cut?.every((byte) => byte === 7)).toBe(true);
    expect((await pdf?.fetch(1_000, new AbortController().signal))?.toString()).toBe('%PDF-1.4 plan');
  });

  it('reads a reply whose first line is "approve <code>" / "deny <code>" as an approval answer, not a message', async () => {
    fixture = await startEmailFixture();
    fixture.imap.append(
      mail({
        from: 'Ops@Example.test',
        subject: 'Re: Approval needed: shell.exec',
        body: '\n  APPROVE 7q2K\n\nOn Tue, 14 Nov 2023, Gateway <gateway@example.test> wrote:\n> approve 7Q2K\n> deny 7Q2K',
      }),
    );
    fixture.imap.append(mail({ from: 'ops@example.test', body: 'deny X9Z1' }));
    fixture.imap.append(mail({ from: 'ops@example.test', body: 'I would approve 7Q2K if it were safer' }));
    await fixture.start();
    await fixture.events.until(() => fixture?.events.approvals.length === 2 && fixture.events.messages.length === 1);
    expect(fixture.events.approvals).toEqual([
      { chatId: 'ops@example.test', senderId: 'ops@example.test', requestRef: '7q2K', approved: true },
      { chatId: 'ops@example.test', senderId: 'ops@example.test', requestRef: 'X9Z1', approved: false },
    ]);
    expect(fixture.events.messages[0]?.text).toBe('I would approve 7Q2K if it were safer');
  });

  it("ignores auto-replies and the gateway's own mail, but still marks them \\Seen", async () => {
    fixture = await startEmailFixture();
    const vacation = fixture.imap.append(
      mail({ from: 'away@example.test', headers: ['Auto-Submitted: auto-replied'], body: 'I am on holiday' }),
    );
    const own = fixture.imap.append(mail({ from: 'gateway@example.test', body: 'an echo of our own reply' }));
    const real = fixture.imap.append(mail({ from: 'real@example.test', body: 'a person' }));
    await fixture.start();
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    await fixture.imap.waitForCommand('UID STORE', 3);
    expect(fixture.events.messages.map((message) => message.text)).toEqual(['a person']);
    for (const message of [vacation, own, real]) expect([...message.flags]).toContain('\\Seen');
  });

  it('does not fetch a mail larger than the channel takes; it arrives as one attachment of its full size', async () => {
    fixture = await startEmailFixture((config) => ({ ...config, maxAttachmentBytes: 1_000, maxInboundChars: 100 }));
    const big = fixture.imap.append(
      mail({ from: 'huge@example.test', messageId: '<big@x>', body: 'x'.repeat(400_000) }),
    );
    await fixture.start();
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    const message = fixture.events.messages[0];
    expect(message).toMatchObject({ chatId: 'huge@example.test', messageId: '<big@x>', text: '' });
    expect(message?.attachments).toHaveLength(1);
    expect(message?.attachments[0]?.bytes).toBe(big.source.length);
    expect(fixture.imap.commands).toContain(`UID FETCH ${big.uid} (UID BODY.PEEK[HEADER])`);
    expect(fixture.imap.commands).not.toContain(`UID FETCH ${big.uid} (UID BODY.PEEK[])`);
  });
});
