// SSE byte streams as each provider sends them (ids shortened), with multi-byte UTF-8 text, and the events they must decode to.
import type { WireEvent } from '../../../src/providers/wire/types.js';

export interface RecordedStream {
  name: string;
  bytes: Uint8Array;
  events: WireEvent[];
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** OpenAI with stream_options.include_usage, with an OpenRouter-style keep-alive comment and parallel tool calls. */
const OPENAI = String.raw`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

: OPENROUTER PROCESSING

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Grüße, "},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"世界 🎉"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Zürich\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_def","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":12,"total_tokens":62,"prompt_tokens_details":{"cached_tokens":32,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]

`;

/** Anthropic with a thinking block (ignored), pings, prompt-cache usage and a tool_use block streamed as partial JSON. */
const ANTHROPIC = String.raw`event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":8,"cache_read_input_tokens":30,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Überlege…"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: ping
data: {"type": "ping"}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Grüße, "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"世界 🎉"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Zü"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"rich\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}

event: message_stop
data: {"type":"message_stop"}

`;

/** Gemini's alt=sse stream: CRLF line ends, a thought part (ignored), a whole function call, usage repeated per chunk. */
const GEMINI =
  String.raw`data: {"candidates": [{"content": {"parts": [{"text": "Grüße, "}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 40,"totalTokenCount": 40,"cachedContentTokenCount": 16},"modelVersion": "gemini-2.5-flash","responseId": "r1"}

data: {"candidates": [{"content": {"parts": [{"text": "Plan: answer.","thought": true},{"text": "世界 🎉"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 40,"totalTokenCount": 52,"cachedContentTokenCount": 16},"modelVersion": "gemini-2.5-flash","responseId": "r1"}

data: {"candidates": [{"content": {"parts": [{"functionCall": {"id": "fc_1","name": "get_weather","args": {"city": "Zürich"}},"thoughtSignature": "Cs0BAVSoXO8"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 40,"candidatesTokenCount": 9,"totalTokenCount": 61,"cachedContentTokenCount": 16,"thoughtsTokenCount": 12},"modelVersion": "gemini-2.5-flash","responseId": "r1"}

`.replaceAll('\n', '\r\n');

export const RECORDED_STREAMS: Record<'openai-chat' | 'anthropic-messages' | 'google-gemini', RecordedStream> = {
  'openai-chat': {
    name: 'OpenAI Chat Completions',
    bytes: encode(OPENAI),
    events: [
      { type: 'text-delta', text: 'Grüße, ' },
      { type: 'text-delta', text: '世界 🎉' },
      { type: 'tool-call', toolCallId: 'call_abc', toolName: 'get_weather', input: { city: 'Zürich' } },
      { type: 'tool-call', toolCallId: 'call_def', toolName: 'get_time', input: {} },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 50, outputTokens: 12, cacheReadTokens: 32, cacheWriteTokens: 0 },
      },
    ],
  },
  'anthropic-messages': {
    name: 'Anthropic Messages',
    bytes: encode(ANTHROPIC),
    events: [
      { type: 'text-delta', text: 'Grüße, ' },
      { type: 'text-delta', text: '世界 🎉' },
      { type: 'tool-call', toolCallId: 'toolu_01', toolName: 'get_weather', input: { city: 'Zürich' } },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 58, outputTokens: 42, cacheReadTokens: 30, cacheWriteTokens: 8 },
      },
    ],
  },
  'google-gemini': {
    name: 'Gemini',
    bytes: encode(GEMINI),
    events: [
      { type: 'text-delta', text: 'Grüße, ' },
      { type: 'text-delta', text: '世界 🎉' },
      { type: 'tool-call', toolCallId: 'fc_1', toolName: 'get_weather', input: { city: 'Zürich' } },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 40, outputTokens: 21, cacheReadTokens: 16, cacheWriteTokens: 0 },
      },
    ],
  },
};
