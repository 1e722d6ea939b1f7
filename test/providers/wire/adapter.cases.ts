// The wire adapter conformance suite: every protocol adapter runs it against the fake LLM server over real HTTP.
import { describe, expect, it, vi } from 'vitest';
import { createWireAdapter, type WireCallRequest } from '../../../src/providers/wire/index.js';
import { fakeVector, startFakeLlm, type ScriptedReply } from '../../support/fake-llm-server.js';
import {
  bodyOf,
  callError,
  callRequest,
  collect,
  finishOf,
  ROUND_TRIP_TRANSCRIPT,
  SAMPLING,
  STRUCTURED,
  textOf,
  TOOLS,
  useWireFixture,
  type WireProtocolCase,
} from './wire-fixture.js';

export function describeWireConformance(protocol: WireProtocolCase): void {
  describe(`wire adapter conformance: ${protocol.name}`, () => {
    const fixture = useWireFixture(protocol);
    const stream = (overrides: Partial<WireCallRequest> = {}) =>
      collect(fixture.adapter.stream(callRequest(overrides)));

    it('streams a plain reply as text and a stop finish, with the credential and extra headers', async () => {
      fixture.llm.script({ text: 'Hello there', chunks: 1, usage: { inputTokens: 11, outputTokens: 3 } });
      const { events, error } = await stream();
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'text-delta', text: 'Hello there' },
        {
          type: 'finish',
          finishReason: 'stop',
          usage: { inputTokens: 11, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
      ]);
      const request = fixture.llm.chatRequests()[0];
      expect(request?.endpoint).toBe(protocol.endpoint);
      expect(request?.isStream).toBe(true);
      expect(request?.headers[protocol.authHeader[0]]).toBe(protocol.authHeader[1]);
      expect(request?.headers['x-extra']).toBe('yes');
      expect(request?.headers['content-type']).toBe('application/json');
    });

    it('yields every text delta in order, multi-byte text intact', async () => {
      const deltas = ['Grü', 'ße, ', '世界', ' 🎉', '!'];
      fixture.llm.script({ deltas });
      const { events } = await stream();
      expect(events.filter((event) => event.type === 'text-delta')).toEqual(
        deltas.map((text) => ({ type: 'text-delta', text })),
      );
    });

    it('assembles parallel tool calls whose arguments arrive in many pieces', async () => {
      fixture.llm.script({
        text: 'Let me look.',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris', days: 2, note: 'ünïcödé ✓' } },
          { id: 'call_b', name: 'get_time', arguments: {} },
        ],
        argumentChunks: 9,
      });
      const { events, error } = await stream({ tools: TOOLS });
      expect(error).toBeUndefined();
      const calls = events.filter((event) => event.type === 'tool-call');
      expect(calls).toEqual([
        {
          type: 'tool-call',
          toolCallId: protocol.hasToolCallIds ? 'call_a' : expect.stringMatching(/^call_/),
          toolName: 'get_weather',
          input: { city: 'Paris', days: 2, note: 'ünïcödé ✓' },
        },
        {
          type: 'tool-call',
          toolCallId: protocol.hasToolCallIds ? 'call_b' : expect.stringMatching(/^call_/),
          toolName: 'get_time',
          input: {},
        },
      ]);
      expect(textOf(events)).toBe('Let me look.');
      expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
      expect(events.findIndex((event) => event.type === 'tool-call')).toBeLessThan(
        events.findIndex((event) => event.type === 'finish'),
      );
    });

    if (protocol.hasRawArguments)
      it('passes arguments that are not JSON through as their raw text', async () => {
        fixture.llm.script({
          toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"city": ' }],
          argumentChunks: 3,
        });
        const { events, error } = await stream({ tools: TOOLS });
        expect(error).toBeUndefined();
        expect(events.find((event) => event.type === 'tool-call')).toMatchObject({
          toolName: 'get_weather',
          input: '{"city": ',
        });
      });

    it('sends the transcript with tool calls, grouped tool results and no empty assistant message, exactly', async () => {
      const { error } = await stream({ system: 'Base.', messages: ROUND_TRIP_TRANSCRIPT, tools: TOOLS });
      expect(error).toBeUndefined();
      const body = bodyOf(fixture.llm);
      expect(protocol.system(body)).toBe('Base.\n\nSummary of earlier turns.');
      expect(protocol.conversation(body)).toEqual(protocol.roundTrip);
    });

    it('places the system prompt where the protocol wants it, and sends none when there is none', async () => {
      await stream({ system: 'Be terse.' });
      expect(protocol.system(bodyOf(fixture.llm, 0))).toBe('Be terse.');
      await stream({
        system: undefined,
        messages: [
          { role: 'system', content: 'From the transcript.', timestamp: 0 },
          { role: 'user', content: 'Hi', timestamp: 1 },
        ],
      });
      expect(protocol.system(bodyOf(fixture.llm, 1))).toBe('From the transcript.');
      await stream({ system: '' });
      expect(protocol.system(bodyOf(fixture.llm, 2))).toBeUndefined();
    });

    it('forwards the sampling fields in the protocol shape', async () => {
      await stream({ sampling: SAMPLING });
      const body = bodyOf(fixture.llm);
      expect(body).toMatchObject(protocol.sampling.present);
      for (const field of protocol.sampling.absent) expect(body).not.toHaveProperty(field);
    });

    it('forwards tools, the response format, a named tool choice and serial tool calls in the protocol shape', async () => {
      await stream(STRUCTURED);
      expect(bodyOf(fixture.llm)).toMatchObject(protocol.structured);
    });

    it('maps each tool choice, and sends none without tools', async () => {
      for (const choice of ['auto', 'none', 'required'] as const) await stream({ tools: TOOLS, toolChoice: choice });
      expect([0, 1, 2].map((index) => protocol.toolChoice(bodyOf(fixture.llm, index)))).toEqual([
        protocol.toolChoices.auto,
        protocol.toolChoices.none,
        protocol.toolChoices.required,
      ]);
      await stream({ toolChoice: 'required', parallelToolCalls: true });
      expect(protocol.toolChoice(bodyOf(fixture.llm, 3))).toBeUndefined();
    });

    it('reports usage from the last chunk, cached tokens included', async () => {
      fixture.llm.script({ text: 'ok', usage: protocol.usage.script });
      const { events } = await stream();
      expect(finishOf(events)).toEqual({ type: 'finish', finishReason: 'stop', usage: protocol.usage.expected });
    });

    if (protocol.canOmitUsage)
      it('finishes with zero usage when the server sends none', async () => {
        fixture.llm.script({ text: 'ok', omitUsage: true });
        const { events, error } = await stream();
        expect(error).toBeUndefined();
        expect(finishOf(events)).toEqual({
          type: 'finish',
          finishReason: 'stop',
          usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        });
      });

    it('maps every finish reason', async () => {
      for (const { reply, expected } of protocol.finishReasons) {
        fixture.llm.script({ text: 'x', ...reply });
        const { events, error } = await stream({ tools: TOOLS });
        expect(error, JSON.stringify(reply)).toBeUndefined();
        expect(finishOf(events), JSON.stringify(reply)).toMatchObject({ finishReason: expected });
      }
    });

    it('reads a whole JSON answer from a server that ignored stream: true', async () => {
      fixture.llm.script({
        text: 'Whole answer.',
        chunks: 1,
        toolCalls: [{ id: 'call_j', name: 'get_weather', arguments: { city: 'Rome' } }],
        usage: protocol.usage.script,
        ignoreStream: true,
      });
      const { events, error } = await stream({ tools: TOOLS });
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'text-delta', text: 'Whole answer.' },
        {
          type: 'tool-call',
          toolCallId: protocol.hasToolCallIds ? 'call_j' : expect.stringMatching(/^call_/),
          toolName: 'get_weather',
          input: { city: 'Rome' },
        },
        { type: 'finish', finishReason: 'tool-calls', usage: protocol.usage.expected },
      ]);
    });

    it('classifies error answers by status, with Retry-After in ms and the provider error in the detail', async () => {
      const cases: { reply: ScriptedReply; kind: string; retryAfterMs?: number }[] = [
        { reply: { status: 401 }, kind: 'auth' },
        { reply: { status: 403 }, kind: 'auth' },
        { reply: { status: 400 }, kind: 'bad_request' },
        { reply: { status: 404 }, kind: 'bad_request' },
        { reply: { status: 408 }, kind: 'timeout' },
        { reply: { status: 429, headers: { 'retry-after': '3' } }, kind: 'rate_limit', retryAfterMs: 3_000 },
        { reply: { status: 429, headers: { 'retry-after-ms': '1500' } }, kind: 'rate_limit', retryAfterMs: 1_500 },
        { reply: { status: 500 }, kind: 'server' },
        { reply: { status: 503, headers: { 'retry-after': '1' } }, kind: 'server', retryAfterMs: 1_000 },
        { reply: { status: 529 }, kind: 'server' },
      ];
      for (const { reply, kind, retryAfterMs } of cases) {
        const status = reply.status ?? 0;
        fixture.llm.script({ ...reply, errorMessage: `scripted failure ${status}` });
        const { events, error } = await stream();
        expect(events).toEqual([]);
        const failure = callError(error);
        expect(
          { kind: failure.kind, statusCode: failure.statusCode, retryAfterMs: failure.retryAfterMs },
          String(status),
        ).toEqual({ kind, statusCode: status, retryAfterMs });
        expect(failure.detail, String(status)).toContain(`scripted failure ${status}`);
        const type = protocol.errorTypes[status];
        if (type !== undefined) expect(failure.detail, String(status)).toContain(type);
        expect(failure.message).not.toContain('scripted failure');
      }
    });

    it('reads Retry-After given as an HTTP date', async () => {
      const date = new Date(Date.now() + 30_000).toUTCString();
      fixture.llm.script({ status: 429, headers: { 'retry-after': date } });
      const failure = callError((await stream()).error);
      expect(failure.kind).toBe('rate_limit');
      expect(failure.retryAfterMs).toBeGreaterThan(25_000);
      expect(failure.retryAfterMs).toBeLessThanOrEqual(30_000);
    });

    it('fails the call on an error frame mid-stream, after the text that came before it', async () => {
      fixture.llm.script({ text: 'one two three', streamError: { afterChunks: 1, status: 429, message: 'slow down' } });
      const rateLimited = await stream();
      expect(textOf(rateLimited.events)).toBe('one ');
      expect(finishOf(rateLimited.events)).toBeUndefined();
      expect(callError(rateLimited.error)).toMatchObject({ kind: 'rate_limit', statusCode: undefined });
      expect(callError(rateLimited.error).detail).toContain('slow down');

      fixture.llm.script({ text: 'one two three', streamError: { afterChunks: 2, status: 529 } });
      const overloaded = await stream();
      expect(textOf(overloaded.events)).toBe('one two ');
      expect(callError(overloaded.error).kind).toBe('server');
    });

    it('reports a dropped connection as a network failure, also after output started', async () => {
      fixture.llm.script({ dropConnection: true });
      expect(callError((await stream()).error).kind).toBe('network');
      fixture.llm.script({ text: 'one two three four', dropAfterChunks: 2, chunkDelayMs: 20 });
      const cut = await stream();
      expect(textOf(cut.events)).toBe('one two ');
      expect(callError(cut.error).kind).toBe('network');
    });

    it('reports a refused connection as a network failure', async () => {
      const gone = await startFakeLlm();
      const baseUrl = protocol.baseUrl(gone);
      await gone.close();
      const adapter = createWireAdapter(protocol.type, { baseUrl, apiKey: 'k', timeoutMs: 5_000 });
      try {
        expect(callError((await collect(adapter.stream(callRequest()))).error).kind).toBe('network');
      } finally {
        await adapter.close();
      }
    });

    it('times out after timeoutMs and closes the upstream request', async () => {
      const adapter = createWireAdapter(protocol.type, {
        baseUrl: protocol.baseUrl(fixture.llm),
        apiKey: 'k',
        timeoutMs: 150,
      });
      try {
        fixture.llm.script({ text: 'late', delayMs: 5_000 });
        expect(callError((await collect(adapter.stream(callRequest()))).error)).toMatchObject({ kind: 'timeout' });
        await vi.waitFor(() => expect(fixture.llm.chatRequests()[0]?.closedByClient).toBe(true));
      } finally {
        await adapter.close();
      }
    });

    it("fails with kind aborted, the caller's reason as cause, and closes the upstream connection when aborted mid-stream", async () => {
      fixture.llm.script({ text: 'slow reply that never ends', chunkDelayMs: 200 });
      const controller = new AbortController();
      const reason = new Error('caller went away');
      const seen: string[] = [];
      const { error } = await collect(
        (async function* () {
          for await (const event of fixture.adapter.stream(callRequest({ signal: controller.signal }))) {
            if (event.type === 'text-delta') {
              seen.push(event.text);
              controller.abort(reason);
            }
            yield event;
          }
        })(),
      );
      expect(seen).toEqual(['slow ']);
      expect(callError(error)).toMatchObject({ kind: 'aborted', cause: reason });
      await vi.waitFor(() => expect(fixture.llm.chatRequests()[0]?.closedByClient).toBe(true));
    });

    it('closes the upstream connection when the consumer stops reading, and fails at once on an aborted signal', async () => {
      fixture.llm.script({ text: 'one two three four', chunkDelayMs: 100 });
      for await (const event of fixture.adapter.stream(callRequest())) {
        if (event.type === 'text-delta') break;
      }
      await vi.waitFor(() => expect(fixture.llm.chatRequests()[0]?.closedByClient).toBe(true));
      const aborted = await stream({ signal: AbortSignal.abort(new Error('already gone')) });
      expect(callError(aborted.error).kind).toBe('aborted');
    });

    it('reuses one keep-alive connection for consecutive calls', async () => {
      for (let call = 0; call < 3; call += 1) {
        // undici frees a connection for reuse on the next tick after its body ends; requests arrive later than that.
        await new Promise((resolve) => setImmediate(resolve));
        await stream();
      }
      const ports = fixture.llm.chatRequests().map((request) => request.remotePort);
      expect(ports[0]).toBeDefined();
      expect(new Set(ports).size).toBe(1);
    });

    it('names the request fields the protocol cannot honour', () => {
      const everything = callRequest({
        sampling: { ...SAMPLING, logitBias: { '50256': -100 } },
        tools: TOOLS,
        responseFormat: { type: 'json_object' },
        toolChoice: 'required',
        parallelToolCalls: false,
        reasoningEffort: 'low',
        serviceTier: 'flex',
        promptCacheKey: 'cache-key',
        safetyIdentifier: 'user-hash',
        verbosity: 'low',
      });
      expect(fixture.adapter.unsupported(everything)).toEqual(protocol.unsupportedAll);
      expect(
        fixture.adapter.unsupported(
          callRequest({ sampling: { temperature: 1 }, responseFormat: { type: 'text' }, toolChoice: 'auto' }),
        ),
      ).toEqual([]);
    });

    if (protocol.canEmbed)
      it('embeds one text and a batch through the protocol endpoint', async () => {
        const embed = fixture.adapter.embed;
        if (embed === undefined) throw new Error('no embed');
        const single = await embed.call(fixture.adapter, {
          modelId: 'embed-model',
          texts: ['alpha'],
          signal: new AbortController().signal,
        });
        expect(single.vectors).toEqual([fakeVector('alpha', 8)]);
        const batch = await embed.call(fixture.adapter, {
          modelId: 'embed-model',
          texts: ['a', 'b', 'c'],
          signal: new AbortController().signal,
        });
        expect(batch).toEqual({ vectors: ['a', 'b', 'c'].map((text) => fakeVector(text, 8)), model: 'embed-model' });
        fixture.llm.script({ endpoint: 'embeddings', status: 429, headers: { 'retry-after': '2' } });
        const failure = await embed
          .call(fixture.adapter, { modelId: 'embed-model', texts: ['x'], signal: new AbortController().signal })
          .catch((error: unknown) => error);
        expect(callError(failure)).toMatchObject({ kind: 'rate_limit', statusCode: 429, retryAfterMs: 2_000 });
      });

    if (!protocol.canEmbed)
      it('has no embeddings', () => {
        expect(fixture.adapter.embed).toBeUndefined();
      });
  });
}
