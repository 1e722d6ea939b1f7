// The Telegram adapter in webhook mode: POST /telegram (mounted by the core under /channels/<id>/) checks the secret
// token header, feeds the update and answers 200 at once; a bad secret is 401 and a malformed body 400.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { restErrorHandler } from '../../../src/server/http-errors.js';
import { captureLogs } from '../../support/log-capture.js';
import { setUpAdapter, textMessage, type AdapterSetup } from './telegram-fixture.js';

const SECRET = 'webhook-secret-1';
const URL_PATH = '/channels/tg1/telegram';

let setup: AdapterSetup | undefined;
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  await setup?.adapter.stop();
  await setup?.telegram.close();
  setup = undefined;
  app = undefined;
});

/** A Fastify app with the gateway's REST error envelope and the adapter's routes where the core mounts them. */
async function mounted(): Promise<{ setup: AdapterSetup; app: FastifyInstance }> {
  setup = await setUpAdapter({ mode: 'webhook', webhookSecret: SECRET });
  const { routes } = setup.adapter;
  if (routes === undefined) throw new Error('webhook mode has routes');
  app = Fastify();
  app.setErrorHandler(restErrorHandler(captureLogs('warn').log));
  await app.register(async (scope) => routes(scope), { prefix: '/channels/tg1' });
  await app.ready();
  return { setup, app };
}

function post(target: FastifyInstance, body: string, secret?: string) {
  return target.inject({
    method: 'POST',
    url: URL_PATH,
    headers: {
      'content-type': 'application/json',
      ...(secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret }),
    },
    payload: body,
  });
}

describe('Telegram adapter, webhook', () => {
  it('has no route in polling mode', async () => {
    setup = await setUpAdapter({ mode: 'polling' });
    expect(setup.adapter.routes).toBeUndefined();
  });

  it('feeds an update posted with the right secret and answers 200, without polling', async () => {
    const { setup, app } = await mounted();
    await setup.adapter.start(setup.events);
    await setup.events.waitForState('connected');
    const response = await post(app, JSON.stringify({ update_id: 900, message: textMessage('via webhook') }), SECRET);
    expect(response.statusCode).toBe(200);
    await setup.events.waitFor('messages');
    expect(setup.events.messages[0]).toMatchObject({ chatId: '77', senderId: '77', text: 'via webhook' });
    expect(setup.telegram.calls.some((call) => call.method === 'getUpdates')).toBe(false);
  });

  it('answers an approval button press through the webhook', async () => {
    const { setup, app } = await mounted();
    await setup.adapter.start(setup.events);
    const update = {
      update_id: 901,
      callback_query: {
        id: 'cb-9',
        from: { id: 77, is_bot: false, first_name: 'Alice' },
        chat_instance: 'ci',
        message: { message_id: 5002, date: 1_790_000_000, chat: { id: 77, type: 'private' } },
        data: 'ap:req-9:y',
      },
    };
    expect((await post(app, JSON.stringify(update), SECRET)).statusCode).toBe(200);
    await setup.events.waitFor('approvals');
    expect(setup.events.approvals[0]).toEqual({ chatId: '77', senderId: '77', requestRef: 'req-9', approved: true });
    await setup.telegram.waitForCall('answerCallbackQuery', (call) => call.params.callback_query_id === 'cb-9');
  });

  it('refuses a missing or wrong secret with 401 and feeds nothing', async () => {
    const { setup, app } = await mounted();
    await setup.adapter.start(setup.events);
    const body = JSON.stringify({ update_id: 902, message: textMessage('forged') });
    for (const secret of [undefined, 'wrong', `${SECRET}x`, SECRET.slice(0, -1)]) {
      const response = await post(app, body, secret);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
    // A good post after the refused ones is the only message.
    await post(app, JSON.stringify({ update_id: 903, message: textMessage('real') }), SECRET);
    await setup.events.waitFor('messages');
    expect(setup.events.messages.map((message) => message.text)).toEqual(['real']);
  });

  it('refuses malformed JSON and a body that is no update with 400', async () => {
    const { setup, app } = await mounted();
    await setup.adapter.start(setup.events);
    const malformed = await post(app, '{"update_id": 5, ', SECRET);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: { code: 'invalid_request' } });
    for (const body of ['[1,2]', '"text"', '{"message": {}}', '{"update_id": "x"}']) {
      expect((await post(app, body, SECRET)).statusCode).toBe(400);
    }
    expect(setup.events.messages).toHaveLength(0);
  });

  it('answers 200 even when the core throws on an update, so Telegram does not post it again', async () => {
    const { setup, app } = await mounted();
    const { events } = setup;
    await setup.adapter.start({
      ...events,
      message() {
        throw new Error('listener failed');
      },
    });
    const response = await post(app, JSON.stringify({ update_id: 907, message: textMessage('boom') }), SECRET);
    expect(response.statusCode).toBe(200);
  });

  it('answers 200 to an update of a kind it does not handle, so Telegram does not send it again', async () => {
    const { setup, app } = await mounted();
    await setup.adapter.start(setup.events);
    const response = await post(app, JSON.stringify({ update_id: 904, poll: { id: 'p', question: 'q?' } }), SECRET);
    expect(response.statusCode).toBe(200);
  });

  it('answers 503 before start and after stop, so Telegram delivers the update again later', async () => {
    const { setup, app } = await mounted();
    const body = JSON.stringify({ update_id: 905, message: textMessage('too early') });
    expect((await post(app, body, SECRET)).statusCode).toBe(503);
    await setup.adapter.start(setup.events);
    await setup.adapter.stop();
    expect((await post(app, body, SECRET)).statusCode).toBe(503);
    expect(setup.events.messages).toHaveLength(0);
  });

  it('refuses every post and stays degraded when webhook mode has no secret configured', async () => {
    setup = await setUpAdapter({ mode: 'webhook' });
    const { adapter, events, telegram } = setup;
    const { routes } = adapter;
    if (routes === undefined) throw new Error('webhook mode has routes');
    app = Fastify();
    app.setErrorHandler(restErrorHandler(captureLogs('warn').log));
    await app.register(async (scope) => routes(scope), { prefix: '/channels/tg1' });
    await adapter.start(events);
    await events.waitForState('degraded');
    expect(events.states.find((entry) => entry.state === 'degraded')?.error).toMatch(/webhookSecret/);
    const body = JSON.stringify({ update_id: 906, message: textMessage('no secret') });
    for (const secret of [undefined, '', 'anything']) expect((await post(app, body, secret)).statusCode).toBe(401);
    // It does not report itself connected once getMe answers: nothing can reach it until the secret is set.
    await adapter.test(AbortSignal.timeout(5_000));
    await telegram.waitForCall('getMe');
    expect(events.states.map((entry) => entry.state)).not.toContain('connected');
    expect(events.messages).toHaveLength(0);
  });

  it('reports degraded after repeated failed deliveries (nothing polls in webhook mode) and connected after one succeeds', async () => {
    const { setup } = await mounted();
    const { adapter, events, telegram } = setup;
    await adapter.start(events);
    await events.waitForState('connected');
    telegram.failNext('sendMessage', { status: 500, description: 'Internal Server Error' });
    telegram.failNext('sendMessage', { status: 502, rawBody: 'Bad Gateway' });
    // A refusal that is the chat's (or a pacing 429) says nothing about the connection.
    telegram.failNext('sendMessage', { status: 400, description: 'Bad Request: chat not found' });
    telegram.failNext('sendMessage', { status: 429, description: 'Too Many Requests', retryAfter: 1 });
    const attempt = () => adapter.send({ chatId: '77', text: 'hi' }, AbortSignal.timeout(5_000)).catch(() => undefined);
    await attempt();
    await attempt();
    await attempt();
    await attempt();
    expect(events.states.filter((entry) => entry.state === 'degraded')).toHaveLength(1);
    expect(events.states.at(-1)).toMatchObject({ state: 'degraded', error: expect.stringContaining('sendMessage') });
    await adapter.send({ chatId: '77', text: 'hi' }, AbortSignal.timeout(5_000));
    expect(events.states.at(-1)).toEqual({ state: 'connected' });
  });
});
