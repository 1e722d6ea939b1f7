// Runs the provider conformance suite for each provider type the fake LLM server speaks.
import { describeProviderConformance, type WireReader } from './model-router.cases.js';

type Body = Record<string, unknown>;

const records = (value: unknown): Body[] =>
  Array.isArray(value)
    ? value.filter((item): item is Body => typeof item === 'object' && item !== null && !Array.isArray(item))
    : [];

const str = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function openAiTurns(body: Body): string[] {
  return records(body.messages)
    .filter((message) => message.role !== 'system')
    .flatMap((message) => {
      if (message.role === 'tool') return [`tool:${str(message.tool_call_id)}:${str(message.content)}`];
      const lines =
        message.content === null || message.content === undefined || message.content === ''
          ? []
          : [`${str(message.role)}:${str(message.content)}`];
      for (const call of records(message.tool_calls)) {
        const fn = records([call.function])[0] ?? {};
        lines.push(`${str(message.role)}:call:${str(call.id)}:${str(fn.name)}:${str(fn.arguments)}`);
      }
      return lines;
    });
}

const openAiSystem = (body: Body): string | undefined => {
  const system = records(body.messages).filter((message) => message.role === 'system');
  return system.length === 0 ? undefined : system.map((message) => str(message.content)).join('\n\n');
};

const OPENAI_TRANSCRIPT = [
  'user:What is the weather?',
  'assistant:Checking.',
  'assistant:call:call_1:get_weather:{"city":"Paris"}',
  'assistant:call:call_2:get_weather:{"city":"Oslo"}',
  'tool:call_1:sunny',
  'tool:call_2:city not found',
];

const openAiWire = (type: 'openai' | 'openai-compatible'): WireReader => ({
  type,
  system: openAiSystem,
  maxTokens: (body) => body.max_tokens ?? body.max_completion_tokens,
  toolNames: (body) => records(body.tools).map((tool) => str(records([tool.function])[0]?.name)),
  turns: openAiTurns,
  expectedToolTranscript: OPENAI_TRANSCRIPT,
});

function anthropicTurns(body: Body): string[] {
  return records(body.messages).flatMap((message) => {
    const role = str(message.role);
    if (typeof message.content === 'string') return [`${role}:text:${message.content}`];
    return records(message.content).map((block) => {
      if (block.type === 'text') return `${role}:text:${str(block.text)}`;
      if (block.type === 'tool_use')
        return `${role}:tool_use:${str(block.id)}:${str(block.name)}:${JSON.stringify(block.input)}`;
      if (block.type === 'tool_result') {
        const content =
          typeof block.content === 'string'
            ? block.content
            : records(block.content)
                .map((part) => str(part.text))
                .join('');
        return `${role}:tool_result:${str(block.tool_use_id)}:${block.is_error === true ? 'error' : 'ok'}:${content}`;
      }
      return `${role}:${str(block.type)}`;
    });
  });
}

const anthropicWire: WireReader = {
  type: 'anthropic',
  // Anthropic takes `system` as a string or as text blocks.
  system: (body) =>
    body.system === undefined
      ? undefined
      : typeof body.system === 'string'
        ? body.system
        : records(body.system)
            .map((block) => str(block.text))
            .join('\n\n'),
  maxTokens: (body) => body.max_tokens,
  toolNames: (body) => records(body.tools).map((tool) => str(tool.name)),
  turns: anthropicTurns,
  expectedToolTranscript: [
    'user:text:What is the weather?',
    'assistant:text:Checking.',
    'assistant:tool_use:call_1:get_weather:{"city":"Paris"}',
    'assistant:tool_use:call_2:get_weather:{"city":"Oslo"}',
    'user:tool_result:call_1:ok:sunny',
    'user:tool_result:call_2:error:city not found',
  ],
};

describeProviderConformance(openAiWire('openai-compatible'));
describeProviderConformance(openAiWire('openai'));
describeProviderConformance(anthropicWire);
