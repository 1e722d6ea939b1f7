// The OpenAI fields clients send beyond the spec's table (DESIGN §3, third wave), against a started gateway: taken
// when their value asks for nothing, passed to the providers that honour them (the fake LLM records what arrived),
// and refused with a 400 naming field and provider, or the value asked for, when nothing would deliver it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

interface ErrorBody {
  error: { message: string; type: string; param: string | null };
}

const user = [{ role: 'user', content: 'hi' }];

describe('e2e: OpenAI fields beyond the table', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm({ embeddingDimensions: 16 });
    gateway = await startGateway({
      providers: {
        local: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'mock-model' }, { id: 'small-window', contextWindow: 400, maxTokens: 100 }],
        },
        claude: { type: 'anthropic', baseUrl: llm.baseUrl, apiKey: 'sk-ant-test', models: [{ id: 'claude-test' }] },
        gem: { type: 'google', baseUrl: llm.geminiBaseUrl, apiKey: 'gemini-test-key', models: [{ id: 'gemini-test' }] },
      },
      agents: {
        default: { name: 'Assistant', provider: 'local', model: 'mock-model' },
        timekeeper: { name: 'Timekeeper', provider: 'local', model: 'mock-model', tools: ['current_time'] },
      },
      embeddings: { provider: 'local', model: 'embed-small' },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
  });

  async function post(path: string, body: Record<string, unknown>) {
    const response = await fetch(`${gateway.url}/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.tokens.api}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & Partial<ErrorBody> };
  }
  const chat = (extra: Record<string, unknown>, model = 'local/mock-model') =>
    post('/chat/completions', { model, messages: user, ...extra });
  const respond = (extra: Record<string, unknown>, model = 'local/mock-model') =>
    post('/responses', { model, input: 'hi', ...extra });
  const upstream = (index = 0) => llm.chatRequests()[index]?.body as Record<string, unknown>;
  const refusal = (param: string, message: string) => ({
    status: 400,
    body: { error: { type: 'invalid_request_error', param, message } },
  });

  describe('taken when the value asks for nothing', () => {
    it('Responses: include [], truncation, service_tier auto or default, and none of them reaches the provider', async () => {
      for (const extra of [
        { include: [] },
        { truncation: 'disabled' },
        { truncation: 'auto' },
        { service_tier: 'auto' },
        { service_tier: 'default' },
        { include: null, truncation: null, service_tier: null },
      ]) {
        expect((await respond(extra)).status).toBe(200);
      }
      for (const request of llm.chatRequests()) {
        expect(request.body).not.toHaveProperty('include');
        expect(request.body).not.toHaveProperty('truncation');
        expect(request.body).not.toHaveProperty('service_tier');
      }
    });

    it('Responses truncation: auto drops the oldest history that does not fit, disabled answers 400 instead', async () => {
      const long = (turn: number) => `message ${turn} ${'y'.repeat(300)}`;
      let previous: string | undefined;
      for (let turn = 0; turn < 3; turn += 1) {
        const answered = await respond(
          { input: long(turn), ...(previous === undefined ? {} : { previous_response_id: previous }) },
          'local/small-window',
        );
        expect(answered.status).toBe(200);
        previous = String(answered.body.id);
      }
      const sent = llm.chatRequests().length;
      const refused = await respond(
        { input: long(3), previous_response_id: previous, truncation: 'disabled' },
        'local/small-window',
      );
      expect(refused).toMatchObject({
        status: 400,
        body: { error: { type: 'invalid_request_error', message: expect.stringContaining('truncation is disabled') } },
      });
      expect(llm.chatRequests()).toHaveLength(sent);
      const trimmed = await respond(
        { input: long(3), previous_response_id: previous, truncation: 'auto' },
        'local/small-window',
      );
      expect(trimmed).toMatchObject({ status: 200, body: { truncation: 'auto' } });
    });

    it('chat: name on every message, top_logprobs 0, modalities text, service_tier default, an empty logit_bias', async () => {
      const messages = [
        { role: 'system', content: 'Be brief.', name: 'rules' },
        { role: 'user', content: 'Weather?', name: 'ada' },
        {
          role: 'assistant',
          content: null,
          name: 'bot',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny', name: 'weather' },
      ];
      const tools = [{ type: 'function', function: { name: 'weather' } }];
      expect(
        (
          await chat({
            messages,
            tools,
            top_logprobs: 0,
            modalities: ['text'],
            service_tier: 'default',
            logit_bias: {},
          })
        ).status,
      ).toBe(200);
      expect(upstream().messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ]);
      for (const field of ['top_logprobs', 'modalities', 'service_tier', 'logit_bias'])
        expect(upstream()).not.toHaveProperty(field);
    });

    it('chat: an assistant message echoed back with parsed, parsed_arguments, audio null and function_call null', async () => {
      const echoed = {
        role: 'assistant',
        content: null,
        refusal: null,
        parsed: null,
        audio: null,
        function_call: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Bern"}', parsed_arguments: { city: 'Bern' } },
          },
        ],
      };
      const answered = await chat({
        messages: [...user, echoed, { role: 'tool', tool_call_id: 'call_1', content: 'sunny' }],
        tools: [{ type: 'function', function: { name: 'weather' } }],
      });
      expect(answered.status).toBe(200);
      expect(upstream().messages).toContainEqual({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Bern"}' } }],
      });
      const parsedText = { role: 'assistant', content: '{"a":1}', parsed: { a: 1 }, refusal: null };
      expect((await chat({ messages: [...user, parsedText, { role: 'user', content: 'again' }] })).status).toBe(200);
    });
  });

  describe('passed to the providers that take them', () => {
    it('chat: prompt_cache_key, safety_identifier, logit_bias, verbosity and service_tier flex reach an OpenAI-compatible upstream', async () => {
      const fields = {
        prompt_cache_key: 'tenant-7',
        safety_identifier: 'user-hash',
        logit_bias: { '50256': -100 },
        verbosity: 'low',
        service_tier: 'flex',
      };
      expect((await chat(fields)).status).toBe(200);
      expect(upstream()).toMatchObject(fields);
    });

    it('Responses: prompt_cache_key, safety_identifier, text.verbosity and service_tier priority reach an OpenAI-compatible upstream', async () => {
      const answered = await respond({
        prompt_cache_key: 'tenant-7',
        safety_identifier: 'user-hash',
        text: { verbosity: 'high' },
        service_tier: 'priority',
      });
      expect(answered.status).toBe(200);
      expect(upstream()).toMatchObject({
        prompt_cache_key: 'tenant-7',
        safety_identifier: 'user-hash',
        verbosity: 'high',
        service_tier: 'priority',
      });
    });

    it('safety_identifier reaches Anthropic as metadata.user_id', async () => {
      expect((await chat({ safety_identifier: 'user-hash' }, 'claude/claude-test')).status).toBe(200);
      expect(upstream()).toMatchObject({ metadata: { user_id: 'user-hash' } });
    });

    it('embeddings: dimensions reaches the provider, and the vectors have that length', async () => {
      const answered = await post('/embeddings', {
        model: 'any',
        input: ['alpha', 'beta'],
        dimensions: 4,
        encoding_format: 'float',
      });
      expect(answered.status).toBe(200);
      expect((answered.body.data as { embedding: number[] }[]).map((item) => item.embedding.length)).toEqual([4, 4]);
      expect(llm.requests.at(-1)?.body).toMatchObject({ input: ['alpha', 'beta'], dimensions: 4 });
    });
  });

  describe('refused with a 400 naming field and provider where the provider has no such thing', () => {
    it.each([
      ['claude/claude-test', 'prompt_cache_key', { prompt_cache_key: 'k' }],
      ['claude/claude-test', 'logit_bias', { logit_bias: { '1': 5 } }],
      ['claude/claude-test', 'verbosity', { verbosity: 'low' }],
      ['claude/claude-test', 'service_tier', { service_tier: 'flex' }],
      ['gem/gemini-test', 'safety_identifier', { safety_identifier: 'u' }],
      ['gem/gemini-test', 'prompt_cache_key', { prompt_cache_key: 'k' }],
      ['gem/gemini-test', 'logit_bias', { logit_bias: { '1': 5 } }],
      ['gem/gemini-test', 'verbosity', { verbosity: 'low' }],
      ['gem/gemini-test', 'service_tier', { service_tier: 'priority' }],
    ])('chat on %s: %s', async (model, param, extra) => {
      const provider = model.split('/')[0];
      expect(await chat(extra, model)).toMatchObject(
        refusal(param, `Provider '${provider}' does not support '${param}'`),
      );
      expect(llm.chatRequests()).toHaveLength(0);
    });

    it('Responses names text.verbosity, prompt_cache_key and service_tier', async () => {
      expect(await respond({ text: { verbosity: 'low' } }, 'claude/claude-test')).toMatchObject(
        refusal('text.verbosity', "Provider 'claude' does not support 'text.verbosity'"),
      );
      expect(await respond({ prompt_cache_key: 'k' }, 'gem/gemini-test')).toMatchObject(
        refusal('prompt_cache_key', "Provider 'gem' does not support 'prompt_cache_key'"),
      );
      expect(await respond({ service_tier: 'flex' }, 'gem/gemini-test')).toMatchObject(
        refusal('service_tier', "Provider 'gem' does not support 'service_tier'"),
      );
      expect(llm.chatRequests()).toHaveLength(0);
    });
  });

  describe('refused with a 400 naming the value when nothing would deliver it', () => {
    it('Responses include of data the gateway never returns', async () => {
      expect(await respond({ include: ['reasoning.encrypted_content'] })).toMatchObject(
        refusal(
          'include[0]',
          "Invalid value for 'include[0]': 'reasoning.encrypted_content' is not available from this gateway; send include: [] or leave it out",
        ),
      );
    });

    it('chat top_logprobs above 0, audio modalities, an audio or function_call message', async () => {
      expect(await chat({ top_logprobs: 5 })).toMatchObject(
        refusal(
          'top_logprobs',
          "Invalid value for 'top_logprobs': log probabilities are not supported; only 0 is taken",
        ),
      );
      expect(await chat({ modalities: ['text', 'audio'] })).toMatchObject(
        refusal('modalities[1]', "Invalid value for 'modalities[1]': only 'text' output is supported"),
      );
      const withAudio = { role: 'assistant', content: 'x', audio: { id: 'audio_1' } };
      expect(await chat({ messages: [...user, withAudio, ...user] })).toMatchObject({
        status: 400,
        body: { error: { param: 'messages[1].audio' } },
      });
      const legacyCall = { role: 'assistant', content: null, function_call: { name: 'weather', arguments: '{}' } };
      expect(await chat({ messages: [...user, legacyCall, ...user] })).toMatchObject({
        status: 400,
        body: { error: { param: 'messages[1].function_call' } },
      });
      expect(llm.chatRequests()).toHaveLength(0);
    });

    it('a service tier outside the OpenAI tiers', async () => {
      expect(await chat({ service_tier: 'express' })).toMatchObject({
        status: 400,
        body: { error: { param: 'service_tier' } },
      });
    });

    it('embeddings dimensions that are not a positive integer', async () => {
      expect(await post('/embeddings', { model: 'any', input: 'x', dimensions: 0 })).toMatchObject({
        status: 400,
        body: { error: { param: 'dimensions' } },
      });
      expect(await post('/embeddings', { model: 'any', input: 'x', dimensions: 1e9 })).toMatchObject(
        refusal('dimensions', "Invalid value for 'dimensions': must be at most 8192"),
      );
      expect(llm.requests).toHaveLength(0);
    });
  });

  describe('max_tool_calls caps the tool calls of the turn', () => {
    it('runs the agent tool calls up to the cap, answers the rest as not run, then offers no tools', async () => {
      llm.script(
        {
          toolCalls: [
            { id: 'call_a', name: 'current_time', arguments: {} },
            { id: 'call_b', name: 'current_time', arguments: {} },
          ],
        },
        { text: 'It is noon.' },
      );
      const answered = await respond({ max_tool_calls: 1 }, 'timekeeper');
      expect(answered).toMatchObject({
        status: 200,
        body: {
          status: 'completed',
          output: [{ type: 'message', content: [{ text: 'It is noon.' }] }],
          max_tool_calls: 1,
        },
      });
      const [first, second] = llm
        .chatRequests()
        .map(
          (request) =>
            request.body as { tools?: unknown[]; messages: { role: string; tool_call_id?: string; content: string }[] },
        );
      expect(first?.tools).toHaveLength(1);
      expect(second).not.toHaveProperty('tools');
      const results = second?.messages.filter((message) => message.role === 'tool');
      expect(results?.map((message) => message.tool_call_id)).toEqual(['call_a', 'call_b']);
      expect(results?.[0]?.content).toContain('iso');
      expect(results?.[1]?.content).toBe('Error: not run (max_tool_calls)');
    });

    it('hands back only as many client function calls as the cap leaves', async () => {
      llm.script({
        toolCalls: [
          { id: 'call_1', name: 'lookup', arguments: { word: 'a' } },
          { id: 'call_2', name: 'lookup', arguments: { word: 'b' } },
        ],
      });
      const tools = [
        { type: 'function', name: 'lookup', parameters: { type: 'object', properties: { word: { type: 'string' } } } },
      ];
      const answered = await respond({ tools, max_tool_calls: 1 });
      expect(answered.status).toBe(200);
      const output = answered.body.output as { type: string; call_id?: string }[];
      expect(output.filter((item) => item.type === 'function_call').map((item) => item.call_id)).toEqual(['call_1']);
    });

    it('max_tool_calls 0 offers no tools, and a forcing tool_choice beside it is refused', async () => {
      llm.script({ text: 'No tools needed.' });
      expect((await respond({ max_tool_calls: 0 }, 'timekeeper')).status).toBe(200);
      expect(upstream()).not.toHaveProperty('tools');
      const tools = [{ type: 'function', name: 'lookup' }];
      expect(await respond({ tools, tool_choice: 'required', max_tool_calls: 0 })).toMatchObject({
        status: 400,
        body: { error: { param: 'tool_choice' } },
      });
    });
  });
});
