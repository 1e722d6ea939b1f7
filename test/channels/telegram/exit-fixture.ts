// Run as its own process by exit.test.ts: polls a fake Bot API, takes one message and fetches its attachment, sends
// a reply, stops. It never calls process.exit: the process ends only if stop() left no socket, timer or loop behind.
import { telegramChannelSchema } from '../../../src/config/channels-schema.js';
import { createTelegramAdapter } from '../../../src/channels/telegram/index.js';
import { createLogger } from '../../../src/obs/logger.js';
import { startFakeTelegram } from '../../support/fake-telegram.js';
import { recordEvents, textMessage, TOKEN } from './telegram-fixture.js';

const telegram = await startFakeTelegram({ token: TOKEN });
const config = telegramChannelSchema.parse({
  kind: 'telegram',
  agentId: 'a',
  token: TOKEN,
  apiBaseUrl: telegram.apiRoot,
});
const adapter = createTelegramAdapter(config, {
  channelId: 'tg1',
  now: Date.now,
  log: createLogger({ level: 'silent' }),
});
const events = recordEvents();
telegram.addFile('voice-1', 'voice/1.oga', Buffer.from('voice'));
await adapter.start(events);
telegram.pushUpdate({
  message: textMessage('hi', {
    voice: { file_id: 'voice-1', file_unique_id: 'v', duration: 1, mime_type: 'audio/ogg' },
  }),
});
await events.waitFor('messages');
await events.messages[0]?.attachments[0]?.fetch(1024, AbortSignal.timeout(5_000));
await adapter.send({ chatId: '77', text: 'answer' }, AbortSignal.timeout(5_000));
await adapter.typing('77');
// The next long poll is held open by the fake when stop() comes.
await telegram.waitForWaitingPoll();
await adapter.stop();
await telegram.close();
process.stdout.write(`stopped ${events.states.at(-1)?.state ?? 'none'}\n`);
