// The SSE writer: frame format and field checks, headers, backpressure, client close, keep-alive and the push queue.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createAsyncQueue } from '../../src/server/async-queue.js';
import { formatSseFrame, openSseStream, pipeToSse, type SseStream } from '../../src/server/sse.js';

describe('formatSseFrame', () => {
  it('writes event, id and one data line per line of text, ended by a blank line', () => {
    expect(formatSseFrame({ event: 'token', id: '7', data: '{"a":1}' })).toBe('id: 7\nevent: token\ndata: {"a":1}\n\n');
    expect(formatSseFrame({ data: 'one\ntwo\r\nthree\rfour' })).toBe(
      'data: one\ndata: two\ndata: three\ndata: four\n\n',
    );
    expect(formatSseFrame({ data: '' })).toBe('data: \n\n');
  });

  it('writes retry directives and comments', () => {
    expect(formatSseFrame({ retryMs: 3000 })).toBe('retry: 3000\n\n');
    expect(formatSseFrame({ comment: 'ping' })).toBe(': ping\n\n');
  });

  it('refuses CR or LF in event and id, a bad retry, and an empty frame', () => {
    expect(() => formatSseFrame({ event: 'a\nevent: forged', data: 'x' })).toThrow(/event must not contain CR or LF/);
    expect(() => formatSseFrame({ event: 'a\rb', data: 'x' })).toThrow(TypeError);
    expect(() => formatSseFrame({ id: '1\n', data: 'x' })).toThrow(/id must not contain CR or LF/);
    expect(() => formatSseFrame({ retryMs: -1 })).toThrow(TypeError);
    expect(() => formatSseFrame({ retryMs: 1.5 })).toThrow(TypeError);
    expect(() => formatSseFrame({})).toThrow(/empty/);
  });
});

describe('createAsyncQueue', () => {
  it('yields pushed items in order and finishes after end()', async () => {
    const queue = createAsyncQueue<number>();
    queue.push(1);
    queue.push(2);
    setTimeout(() => {
      queue.push(3);
      queue.end();
      queue.push(4);
    }, 5);
    const seen: number[] = [];
    for await (const item of queue) seen.push(item);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('ends when its signal aborts', async () => {
    const controller = new AbortController();
    const queue = createAsyncQueue<string>({ signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    const seen: string[] = [];
    for await (const item of queue) seen.push(item);
    expect(seen).toEqual([]);
  });

  it('drops the oldest items beyond maxItems and counts them', async () => {
    const queue = createAsyncQueue<number>({ maxItems: 2 });
    for (const item of [1, 2, 3, 4]) queue.push(item);
    queue.end();
    const seen: number[] = [];
    for await (const item of queue) seen.push(item);
    expect(seen).toEqual([3, 4]);
    expect(queue.dropped()).toBe(2);
  });

  it('makes a producer past highWaterMark wait until the consumer has taken enough, without dropping', async () => {
    const queue = createAsyncQueue<string>({ highWaterMark: 5, sizeOf: (text) => text.length });
    queue.push('abc');
    expect(queue.room()).toBeUndefined();
    queue.push('defg');
    const room = queue.room();
    expect(room).toBeInstanceOf(Promise);
    let hasRoom = false;
    void room?.then(() => (hasRoom = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(hasRoom).toBe(false);
    const iterator = queue[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: 'abc' });
    await room;
    expect(hasRoom).toBe(true);
    expect(queue.room()).toBeUndefined();
    expect(await iterator.next()).toEqual({ done: false, value: 'defg' });
    expect(queue.dropped()).toBe(0);
  });

  it('lets a waiting producer go when the queue ends', async () => {
    const queue = createAsyncQueue<string>({ highWaterMark: 1, sizeOf: (text) => text.length });
    queue.push('too long');
    const room = queue.room();
    expect(room).toBeInstanceOf(Promise);
    queue.end();
    await room;
    expect(queue.room()).toBeUndefined();
  });
});

describe('openSseStream', () => {
  let app: FastifyInstance;
  afterEach(async () => {
    await app.close();
  });

  async function serve(handler: (stream: SseStream) => Promise<void>): Promise<string> {
    app = Fastify();
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('x-request-id', 'trace-1');
    });
    app.get('/stream', async (_request, reply) => {
      const stream = openSseStream(reply);
      try {
        await handler(stream);
      } finally {
        stream.close();
      }
      return reply;
    });
    return app.listen({ host: '127.0.0.1', port: 0 });
  }

  function open(url: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${url}/stream`, resolve);
      req.on('error', reject);
      req.end();
    });
  }

  async function readAll(response: IncomingMessage): Promise<string> {
    let text = '';
    for await (const chunk of response) text += String(chunk);
    return text;
  }

  it('sends the SSE headers, keeps headers set before the hijack, and writes frames in order', async () => {
    const url = await serve(async (stream) => {
      await stream.write({ retryMs: 3000 });
      await pipeToSse(
        stream,
        (async function* () {
          yield 'a';
          yield 'b';
        })(),
        (item) => ({ event: 'letter', data: item }),
      );
    });
    const response = await open(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers.connection).toBe('keep-alive');
    expect(response.headers['x-accel-buffering']).toBe('no');
    expect(response.headers['x-request-id']).toBe('trace-1');
    expect(await readAll(response)).toBe('retry: 3000\n\nevent: letter\ndata: a\n\nevent: letter\ndata: b\n\n');
  });

  it('writes a ping comment when the source is quiet for the keep-alive interval', async () => {
    const url = await serve(async (stream) => {
      const queue = createAsyncQueue<string>();
      setTimeout(() => {
        queue.push('x');
        queue.end();
      }, 80);
      await pipeToSse(stream, queue, (item) => ({ data: item }), { keepAliveMs: 25 });
    });
    const text = await readAll(await open(url));
    expect(text.startsWith(': ping\n\n')).toBe(true);
    expect(text.endsWith('data: x\n\n')).toBe(true);
  });

  it('aborts its signal and refuses further writes when the client goes away', async () => {
    let resolveClosed: (value: { aborted: boolean; wrote: boolean; state: string }) => void = () => undefined;
    const closed = new Promise<{ aborted: boolean; wrote: boolean; state: string }>((resolve) => {
      resolveClosed = resolve;
    });
    const url = await serve(async (stream) => {
      await stream.write({ data: 'hello' });
      await new Promise<void>((resolve) => stream.signal.addEventListener('abort', () => resolve(), { once: true }));
      resolveClosed({
        aborted: stream.signal.aborted,
        wrote: await stream.write({ data: 'late' }),
        state: stream.state(),
      });
    });
    const response = await open(url);
    await new Promise<void>((resolve) => response.once('data', () => resolve()));
    response.destroy();
    expect(await closed).toEqual({ aborted: true, wrote: false, state: 'closed' });
  });

  it('waits for drain when the client does not read, and delivers everything once it does', async () => {
    const frame = 'x'.repeat(64 * 1024);
    const total = 256;
    let written = 0;
    const url = await serve(async (stream) => {
      for (let index = 0; index < total; index += 1) {
        if (!(await stream.write({ data: frame }))) return;
        written += 1;
      }
    });
    const response = await open(url);
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // 16 MB cannot all sit in socket buffers: the writer must be parked on 'drain'.
    expect(written).toBeLessThan(total);
    response.resume();
    const text = await readAll(response);
    expect(written).toBe(total);
    expect(text.length).toBe(total * (frame.length + 'data: \n\n'.length));
  });
});
