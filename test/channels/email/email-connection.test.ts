// The email adapter's IMAP connection: health connecting → connected, degraded while a dropped or refused connection
// is retried with backoff, connected again with mail flowing, and disconnected at stop with nothing left running.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startFakeImap } from '../../support/fake-imap.js';
import { startFakeSmtp } from '../../support/fake-smtp.js';
import { gatewayAddress, mail, startEmailFixture, type EmailFixture } from './email-fixture.js';

let fixture: EmailFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('email adapter, connection', () => {
  it('reports connecting then connected, and disconnected at stop after logging out', async () => {
    fixture = await startEmailFixture();
    await fixture.start();
    expect(fixture.events.healthLog).toEqual([{ state: 'connecting' }, { state: 'connected' }]);
    await fixture.adapter.stop();
    expect(fixture.events.healthLog.at(-1)).toEqual({ state: 'disconnected' });
    expect(fixture.imap.commands.at(-1)).toBe('LOGOUT');
    await fixture.imap.waitForNoConnections();
    await fixture.imap.close();
    await fixture.smtp.close();
    fixture = undefined;
  });

  it('reports degraded with the error when the connection drops, reconnects, and mail flows again', async () => {
    fixture = await startEmailFixture();
    await fixture.start();
    fixture.imap.dropConnections();
    await fixture.events.until(() => fixture?.events.healthLog.some((entry) => entry.state === 'degraded') ?? false);
    const degraded = fixture.events.healthLog.find((entry) => entry.state === 'degraded');
    expect(degraded?.error).toBeTruthy();
    await fixture.events.until(() => fixture?.events.healthLog.at(-1)?.state === 'connected');
    await fixture.imap.waitForIdle();
    fixture.imap.append(mail({ from: 'ann@example.test', body: 'after the drop' }));
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    expect(fixture.events.messages[0]?.text).toBe('after the drop');
    expect(fixture.imap.commands.filter((command) => command.startsWith('LOGIN'))).toHaveLength(2);
  });

  it('keeps retrying a refused login (degraded, start still resolves) and connects once the login works', async () => {
    fixture = await startEmailFixture();
    fixture.imap.refuseLogins = true;
    fixture.imap.append(mail({ from: 'ann@example.test', body: 'waiting in the inbox' }));
    await fixture.adapter.start(fixture.events);
    const [connecting, degraded] = fixture.events.healthLog;
    expect(connecting).toEqual({ state: 'connecting' });
    expect(degraded?.state).toBe('degraded');
    expect(degraded?.error).toContain('AUTHENTICATIONFAILED');
    fixture.imap.refuseLogins = false;
    await fixture.events.until(() => fixture?.events.messages.length === 1);
    expect(fixture.events.healthLog.at(-1)).toEqual({ state: 'connected' });
    await fixture.adapter.stop();
    await fixture.imap.close();
    await fixture.smtp.close();
    fixture = undefined;
  });

  it('stops while waiting to reconnect without connecting again', async () => {
    fixture = await startEmailFixture();
    fixture.imap.refuseLogins = true;
    await fixture.adapter.start(fixture.events);
    const logins = fixture.imap.commands.filter((command) => command.startsWith('LOGIN')).length;
    await fixture.adapter.stop();
    expect(fixture.events.healthLog.map((entry) => entry.state)).toEqual(['connecting', 'degraded', 'disconnected']);
    fixture.imap.refuseLogins = false;
    await fixture.imap.waitForNoConnections();
    expect(fixture.imap.commands.filter((command) => command.startsWith('LOGIN'))).toHaveLength(logins);
    await fixture.imap.close();
    await fixture.smtp.close();
    fixture = undefined;
  });

  it('stops while the first connection is still being made: start resolves, nothing stays connected', async () => {
    fixture = await startEmailFixture();
    const starting = fixture.adapter.start(fixture.events);
    await fixture.adapter.stop();
    await starting;
    expect(fixture.events.healthLog.at(-1)).toEqual({ state: 'disconnected' });
    await fixture.imap.waitForNoConnections();
    await fixture.imap.close();
    await fixture.smtp.close();
    fixture = undefined;
  });

  it('leaves nothing running after stop: a process that used the adapter exits on its own', async () => {
    const imap = await startFakeImap({ user: gatewayAddress, password: 'imap-secret' });
    const smtp = await startFakeSmtp({ user: gatewayAddress, password: 'smtp-secret' });
    imap.append(mail({ from: 'ann@example.test', messageId: '<exit@x>', body: 'hello' }));
    const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const host = spawn(
      process.execPath,
      [
        '--import',
        loader,
        fileURLToPath(new URL('../../support/email-adapter-exit-host.ts', import.meta.url)),
        String(imap.port),
        String(smtp.port),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // A host kept alive by a leaked handle fails the test by its timeout, and must not outlive the test.
    onTestFinished(() => {
      if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
    });
    try {
      let out = '';
      host.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const code = await new Promise((resolve) => host.once('close', resolve));
      expect(code).toBe(0);
      expect(out.split('\n')).toEqual(['connecting', 'connected', 'disconnected', 'stopped', '']);
      expect((await smtp.waitForMails(1))[0]?.parsed.inReplyTo).toBe('<exit@x>');
      await imap.waitForNoConnections();
    } finally {
      await imap.close();
      await smtp.close();
    }
  });
});
