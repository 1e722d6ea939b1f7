// From OpenAI requests to turns: model targets, conversation split, content blocks, finish reasons and failures.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../../src/agents/index.js';
import type { FinishReason } from '../../../src/turns/index.js';
import { agentConfigSchema } from '../../../src/config/index.js';
import { GatewayError } from '../../../src/errors.js';
import {
  blocksToText,
  openAiSessionKey,
  resolveTarget,
  splitConversation,
  toOpenAiFinishReason,
  turnFailure,
} from '../../../src/http/openai/turn-input.js';

const agent = (
  id: string,
  status: AgentDefinition['status'] = 'active',
  model: string | null = 'large',
): AgentDefinition => ({
  id,
  status,
  config: agentConfigSchema.parse({ name: id, ...(model === null ? {} : { model }) }),
});
const agents = {
  get: (id: string) =>
    ({
      writer: agent('writer'),
      paused: agent('paused', 'suspended'),
      small: agent('small'),
      bare: agent('bare', 'active', null),
      lost: agent('lost', 'active', 'gone'),
    })[id],
};
const router = {
  resolve: (model: string) =>
    model === 'local/small' || model === 'small' || model === 'large'
      ? { provider: 'local', modelId: model.replace('local/', '') }
      : undefined,
};

function thrown(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error('expected a GatewayError');
}

describe('resolveTarget', () => {
  it('runs an agent by id, and the default agent with a provider/model or bare model id', () => {
    expect(resolveTarget('writer', { agents, router })).toEqual({
      agentId: 'writer',
      models: { primary: { provider: 'local', modelId: 'large' }, fallbacks: [] },
    });
    expect(resolveTarget('local/small', { agents, router })).toEqual({
      models: { primary: { provider: 'local', modelId: 'small' }, fallbacks: [] },
    });
    expect(resolveTarget('large', { agents, router })).toEqual({
      models: { primary: { provider: 'local', modelId: 'large' }, fallbacks: [] },
    });
  });

  it("chooses the named agent's models where the request is read, fallbacks in order; the turn carries them", () => {
    const withFallbacks = {
      get: (id: string) =>
        id === 'writer'
          ? {
              id,
              status: 'active' as const,
              config: agentConfigSchema.parse({
                name: id,
                model: 'large',
                fallbackModels: ['local/small', 'local/gone'],
              }),
            }
          : undefined,
    };
    expect(resolveTarget('writer', { agents: withFallbacks, router })).toEqual({
      agentId: 'writer',
      models: {
        primary: { provider: 'local', modelId: 'large' },
        fallbacks: [{ provider: 'local', modelId: 'small' }],
      },
    });
  });

  it('prefers an agent over a bare model id of the same name', () => {
    expect(resolveTarget('small', { agents, router })).toEqual({
      agentId: 'small',
      models: { primary: { provider: 'local', modelId: 'large' }, fallbacks: [] },
    });
  });

  it('throws not_found `Model not found: <model>` naming the param, and conflict for a suspended agent', () => {
    expect(thrown(() => resolveTarget('ghost', { agents, router }))).toMatchObject({
      kind: 'not_found',
      message: 'Model not found: ghost',
      details: { param: 'model' },
    });
    expect(thrown(() => resolveTarget('paused', { agents, router }))).toMatchObject({
      kind: 'conflict',
      details: { param: 'model' },
    });
  });

  it('refuses an agent without a usable model with conflict naming model, rather than running a turn that fails as upstream', () => {
    for (const id of ['bare', 'lost']) {
      expect(thrown(() => resolveTarget(id, { agents, router }))).toMatchObject({
        kind: 'conflict',
        message: `Agent '${id}' has no model: set agents.${id}.model`,
        details: { param: 'model' },
      });
    }
  });
});

describe('splitConversation', () => {
  it('joins system messages, seeds the other messages in order, and takes the last user message as input', () => {
    const input = splitConversation(
      [
        { role: 'system', text: 'A' },
        { role: 'user', text: 'q1' },
        { role: 'assistant', text: 'a1' },
        { role: 'system', text: 'B' },
        { role: 'user', text: 'q2' },
      ],
      1000,
      'messages',
    );
    expect(input).toEqual({
      message: 'q2',
      systemPrompt: 'A\nB',
      seedHistory: [
        { role: 'user', content: 'q1', timestamp: 1000 },
        { role: 'assistant', content: 'a1', timestamp: 1000 },
      ],
    });
  });

  it('leaves the system prompt unset without system messages', () => {
    expect(splitConversation([{ role: 'user', text: 'hi' }], 0, 'messages')).toEqual({
      message: 'hi',
      seedHistory: [],
    });
  });

  it('throws invalid_params naming the param when no message is from the user', () => {
    expect(thrown(() => splitConversation([{ role: 'assistant', text: 'x' }], 0, 'input'))).toMatchObject({
      kind: 'invalid_params',
      details: { param: 'input' },
    });
  });
});

describe('blocksToText', () => {
  const kinds = { text: ['text'], image: ['image_url'] };
  it('joins text blocks with a newline', () => {
    expect(
      blocksToText(
        [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        kinds,
        'messages[0].content',
      ),
    ).toBe('a\nb');
  });
  it('refuses images as vision input, other types and missing text, naming the block', () => {
    expect(thrown(() => blocksToText([{ type: 'image_url' }], kinds, 'm'))).toMatchObject({
      details: { param: 'm[0]' },
      message: expect.stringMatching(/Vision input/),
    });
    expect(
      thrown(() => blocksToText([{ type: 'text', text: 'a' }, { type: 'input_audio' }], kinds, 'm')),
    ).toMatchObject({ details: { param: 'm[1].type' } });
    expect(thrown(() => blocksToText([{ type: 'text' }], kinds, 'm'))).toMatchObject({
      details: { param: 'm[0].text' },
    });
  });
});

describe('finish reasons and failed turns', () => {
  it('maps per the spec table: max_steps and a reply cut at its length are length, every other value stop', () => {
    const table: [FinishReason | string, string][] = [
      ['stop', 'stop'],
      ['max_steps', 'length'],
      ['length', 'length'],
      ['budget_exceeded', 'stop'],
      ['circuit_open', 'stop'],
      ['context_loop', 'stop'],
      ['error', 'stop'],
      ['something_new', 'stop'],
    ];
    for (const [internal, expected] of table) expect(toOpenAiFinishReason(internal), internal).toBe(expected);
  });

  it('turns a turn without an answer into an error kind, and leaves answered turns alone', () => {
    expect(turnFailure({ finishReason: 'error', error: 'boom', response: '' }, 'messages')).toMatchObject({
      kind: 'upstream_failed',
      message: 'boom',
    });
    expect(turnFailure({ finishReason: 'circuit_open', response: '' }, 'messages')).toMatchObject({
      kind: 'unavailable',
    });
    expect(turnFailure({ finishReason: 'context_exhausted', response: '' }, 'input')).toMatchObject({
      kind: 'invalid_params',
      details: { param: 'input' },
    });
    expect(turnFailure({ finishReason: 'aborted', response: '' }, 'messages')).toMatchObject({ kind: 'unavailable' });
    for (const reason of ['stop', 'max_steps', 'budget_exceeded', 'context_loop'] as const)
      expect(turnFailure({ finishReason: reason, response: '' }, 'messages')).toBeUndefined();
  });

  it('maps what failed: an upstream failure keeps its status, storage unreachable mid-turn is unavailable with its retry hint', () => {
    expect(
      turnFailure(
        {
          finishReason: 'error',
          error: 'Model call to a/b failed: server (HTTP 500): boom',
          response: '',
          errorKind: 'upstream_failed',
          upstreamStatus: 500,
        },
        'messages',
      ),
    ).toMatchObject({
      kind: 'upstream_failed',
      message: 'Model call to a/b failed: server (HTTP 500): boom',
      details: { upstreamStatus: 500 },
    });
    expect(
      turnFailure(
        {
          finishReason: 'error',
          error: 'Storage cannot be reached',
          response: '',
          errorKind: 'unavailable',
          retryAfterMs: 5_000,
        },
        'messages',
      ),
    ).toMatchObject({ kind: 'unavailable', message: 'Storage cannot be reached', details: { retryAfterMs: 5_000 } });
  });

  it('answers a turn that produced text normally even when it then failed (error maps to stop)', () => {
    expect(
      turnFailure({ finishReason: 'error', error: 'boom', response: 'partial answer' }, 'messages'),
    ).toBeUndefined();
    expect(turnFailure({ finishReason: 'circuit_open', response: 'partial answer' }, 'messages')).toBeUndefined();
  });

  it('keys each request as its own session', () => {
    expect(openAiSessionKey('chatcmpl-1')).toEqual({
      sessionKey: 'default:openai-api:openai:chatcmpl-1',
      keyParts: { tenantId: 'default', userId: 'openai-api', channelId: 'openai', peerId: 'chatcmpl-1' },
    });
  });
});
