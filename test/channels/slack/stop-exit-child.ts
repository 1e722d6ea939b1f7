// Run as a child by stop-exit.test.ts: both Slack modes against the fake, one exchange each, stop; the process must
// then exit on its own (any socket, loop or timer the adapter left behind would keep it alive).
import { blockActions, eventCallback, postEvent } from '../../support/fake-slack.js';
import { startSlackFixture } from './slack-fixture.js';

const events = await startSlackFixture('events');
await postEvent(events.routeBase, eventCallback({ type: 'message', channel: 'C1', user: 'U1', text: 'hi', ts: '1.1' }));
await events.until((r) => r.messages[0], 'an events-mode message');
await events.adapter.send({ chatId: 'C1', text: 'answer' }, AbortSignal.timeout(10_000));
await events.close();

const socket = await startSlackFixture('socket');
await socket.fake.waitForSocket();
await socket.until((r) => r.health.find((h) => h.state === 'connected'), 'connected');
await socket.fake.pushEnvelope('interactive', blockActions('U7', 'D1', 'approve', 'req-1'));
await socket.adapter.send({ chatId: 'D1', text: 'answer' }, AbortSignal.timeout(10_000));
await socket.close();

process.stdout.write('stopped\n');
