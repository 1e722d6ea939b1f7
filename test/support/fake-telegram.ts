// A scripted fake Telegram Bot API on 127.0.0.1:0: the methods the Telegram channel adapter calls, as JSON over
// `POST /bot<token>/<method>`, getUpdates long polling (honouring `offset` and `timeout`), and `/file/bot<token>/<path>`.
//
//   const telegram = await startFakeTelegram({ token: '123:abc' });
//   telegram.pushUpdate({ message: { ... } });          // delivered to the next (or the waiting) getUpdates
//   telegram.failNext('sendMessage', { status: 429, retryAfter: 3 });
//   await telegram.waitForCall('sendMessage');           // what the adapter sent
//   await telegram.close();
//
// Each method answers as the real Bot API does: `{ok: true, result}`, or `{ok: false, error_code, description,
// parameters?}` with the HTTP status of the error code. Updates stay queued until a getUpdates confirms them with a
// higher offset, exactly as Telegram keeps them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
}

export interface ScriptedFailure {
  /** HTTP status; the Bot API error_code is the same. */
  status: number;
  description?: string;
  /** `parameters.retry_after` in seconds (429). */
  retryAfter?: number;
  /** A body that is not the Bot API's JSON (a proxy's error page). */
  rawBody?: string;
}

export interface FakeTelegramOptions {
  token: string;
  /** What getMe answers. */
  botUser?: { id: number; username: string; first_name: string };
}

export interface FakeTelegram {
  /** `http://127.0.0.1:<port>`: the adapter's apiBaseUrl. */
  readonly apiRoot: string;
  /** Every method call received, oldest first (file downloads are not calls). */
  readonly calls: RecordedCall[];
  /** Queues an update (its update_id assigned here) and returns that id. */
  pushUpdate(update: Record<string, unknown>): number;
  /** The next call of `method` fails as scripted (consumed once; several queue up). */
  failNext(method: string, failure: ScriptedFailure): void;
  /** Serves `bytes` at `/file/bot<token>/<path>`; getFile with `fileId` answers with the path and size. */
  addFile(fileId: string, path: string, bytes: Buffer): void;
  /** Resolves with the first call of `method` matching `predicate` (already received or future). */
  waitForCall(method: string, predicate?: (call: RecordedCall) => boolean): Promise<RecordedCall>;
  /** getUpdates requests waiting for an update right now. */
  waitingPolls(): number;
  /** Resolves once a getUpdates request is held waiting (a long poll in progress). */
  waitForWaitingPoll(): Promise<void>;
  /** Resolves once no getUpdates request is held (the client hung up or was answered). */
  waitForNoWaitingPoll(): Promise<void>;
  /** Queued, unconfirmed updates. */
  pendingUpdates(): number;
  close(): Promise<void>;
}

interface WaitingPoll {
  response: ServerResponse;
  offset: number;
  limit: number;
  timer: NodeJS.Timeout;
}

const DEFAULT_BOT = { id: 4242, username: 'gateway_test_bot', first_name: 'Gateway' };

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function numberParam(params: Record<string, unknown>, name: string, fallback: number): number {
  const value = params[name];
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value !== '' && Number.isFinite(Number(value))) return Number(value);
  return fallback;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? { ...parsed } : {};
}

export async function startFakeTelegram({ token, botUser = DEFAULT_BOT }: FakeTelegramOptions): Promise<FakeTelegram> {
  const calls: RecordedCall[] = [];
  const failures = new Map<string, ScriptedFailure[]>();
  const files = new Map<string, { path: string; bytes: Buffer }>();
  let updates: { update_id: number; [key: string]: unknown }[] = [];
  let nextUpdateId = 100;
  let nextMessageId = 5000;
  const polls = new Set<WaitingPoll>();
  const listeners = new Set<() => void>();

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  function until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return;
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
      check();
    });
  }

  function confirm(offset: number): void {
    if (offset > 0) updates = updates.filter((update) => update.update_id >= offset);
  }

  function deliverable(offset: number, limit: number) {
    return updates.filter((update) => update.update_id >= offset).slice(0, limit);
  }

  function answerPoll(poll: WaitingPoll): void {
    clearTimeout(poll.timer);
    polls.delete(poll);
    sendJson(poll.response, 200, { ok: true, result: deliverable(poll.offset, poll.limit) });
    notify();
  }

  function getUpdates(params: Record<string, unknown>, response: ServerResponse): void {
    const offset = numberParam(params, 'offset', 0);
    const limit = numberParam(params, 'limit', 100);
    const timeoutSeconds = numberParam(params, 'timeout', 0);
    confirm(offset);
    if (deliverable(offset, limit).length > 0 || timeoutSeconds <= 0) {
      sendJson(response, 200, { ok: true, result: deliverable(offset, limit) });
      return;
    }
    const poll: WaitingPoll = {
      response,
      offset,
      limit,
      timer: setTimeout(() => answerPoll(poll), timeoutSeconds * 1000),
    };
    polls.add(poll);
    response.once('close', () => {
      if (!polls.has(poll)) return;
      clearTimeout(poll.timer);
      polls.delete(poll);
      notify();
    });
    notify();
  }

  function message(params: Record<string, unknown>, text: unknown) {
    const chatId = params.chat_id;
    return {
      message_id: nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: typeof chatId === 'number' ? chatId : Number(chatId), type: 'private' },
      from: { id: botUser.id, is_bot: true, first_name: botUser.first_name, username: botUser.username },
      text: typeof text === 'string' ? text : '',
    };
  }

  function answerMethod(method: string, params: Record<string, unknown>, response: ServerResponse): void {
    switch (method) {
      case 'getMe':
        return sendJson(response, 200, { ok: true, result: { ...botUser, is_bot: true } });
      case 'getUpdates':
        return getUpdates(params, response);
      case 'deleteWebhook':
      case 'sendChatAction':
      case 'answerCallbackQuery':
        return sendJson(response, 200, { ok: true, result: true });
      case 'sendMessage':
        return sendJson(response, 200, { ok: true, result: message(params, params.text) });
      case 'editMessageText':
        return sendJson(response, 200, {
          ok: true,
          result: { ...message(params, params.text), message_id: numberParam(params, 'message_id', 0) },
        });
      case 'getFile': {
        const fileId = typeof params.file_id === 'string' ? params.file_id : '';
        const file = files.get(fileId);
        if (file === undefined)
          return sendJson(response, 400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
        return sendJson(response, 200, {
          ok: true,
          result: {
            file_id: fileId,
            file_unique_id: `u-${fileId}`,
            file_size: file.bytes.length,
            file_path: file.path,
          },
        });
      }
      default:
        return sendJson(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const filePrefix = `/file/bot${token}/`;
    if (request.method === 'GET' && url.pathname.startsWith(filePrefix)) {
      const path = decodeURIComponent(url.pathname.slice(filePrefix.length));
      const file = [...files.values()].find((candidate) => candidate.path === path);
      if (file === undefined) return sendJson(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
      response.end(file.bytes);
      return;
    }
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (match === null) return sendJson(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, presentedToken = '', method = ''] = match;
    const params = { ...Object.fromEntries(url.searchParams), ...(await readBody(request)) };
    if (presentedToken !== token)
      return sendJson(response, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    calls.push({ method, params });
    notify();
    const failure = failures.get(method)?.shift();
    if (failure !== undefined) {
      if (failure.rawBody !== undefined) {
        response.writeHead(failure.status, { 'content-type': 'text/html' });
        response.end(failure.rawBody);
        return;
      }
      return sendJson(response, failure.status, {
        ok: false,
        error_code: failure.status,
        description: failure.description ?? `Error ${failure.status}`,
        ...(failure.retryAfter === undefined ? {} : { parameters: { retry_after: failure.retryAfter } }),
      });
    }
    answerMethod(method, params, response);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 400, { ok: false, error_code: 400, description: 'Bad Request' });
      else response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    calls,
    pushUpdate(update) {
      const updateId = nextUpdateId++;
      updates.push({ ...update, update_id: updateId });
      for (const poll of [...polls]) if (deliverable(poll.offset, poll.limit).length > 0) answerPoll(poll);
      return updateId;
    },
    failNext(method, failure) {
      const queue = failures.get(method) ?? [];
      queue.push(failure);
      failures.set(method, queue);
    },
    addFile(fileId, path, bytes) {
      files.set(fileId, { path, bytes });
    },
    async waitForCall(method, predicate = () => true) {
      let found: RecordedCall | undefined;
      await until(() => {
        found = calls.find((call) => call.method === method && predicate(call));
        return found !== undefined;
      });
      if (found === undefined) throw new Error(`no ${method} call`);
      return found;
    },
    waitingPolls: () => polls.size,
    waitForWaitingPoll: () => until(() => polls.size > 0),
    waitForNoWaitingPoll: () => until(() => polls.size === 0),
    pendingUpdates: () => updates.length,
    async close() {
      for (const poll of [...polls]) {
        clearTimeout(poll.timer);
        polls.delete(poll);
      }
      listeners.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
