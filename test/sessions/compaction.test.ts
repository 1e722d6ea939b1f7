// session.compact: the older messages become one summary written by the session agent's model (a scripted LLM server).
import { createEventBus } from '../../src/events/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { providerConfigSchema } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createModelRouter } from '../../src/providers/index.js';
import { SUMMARY_PREFIX } from '../../src/sessions/index.js';
import { compactionBoundary } from '../../src/sessions/compaction.js';
import type { TranscriptMessage } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callerOf, createServiceFixture, staticAgents, T0, type ServiceFixture } from './service-fixture.js';

const signal = new AbortController().signal;
const log = createLogger({ level: 'silent' });

describe('session compaction', () => {
  let llm: FakeLlm;
  let fx: ServiceFixture;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(async () => {
    llm.reset();
    await fx.close();
  });

  function withRouter(options: { keepRecent?: number } = {}): ServiceFixture {
    const router = createModelRouter({
      config: {
        local: providerConfigSchema.parse({
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small', contextWindow: 8192 }],
        }),
      },
      events: createEventBus({ now: () => T0, log }),
      log,
    });
    return createServiceFixture({
      router,
      agents: staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'small' } }),
      options: { compactKeepRecent: options.keepRecent ?? 2 },
    });
  }

  async function converse(turns: number): Promise<void> {
    for (let index = 1; index <= turns; index += 1) {
      fx.advance(1000);
      await fx.sessions.send({ key: 'default:a:ws', message: `question ${index}`, caller: callerOf('anyone'), signal });
    }
  }

  it('replaces all but the newest messages with one system summary from the model', async () => {
    fx = withRouter({ keepRecent: 2 });
    await converse(3);
    llm.script({ text: 'The user asked three questions about numbers.' });
    const result = await fx.sessions.compact('default:a:ws', signal);
    expect(result).toMatchObject({
      sessionKey: 'default:a:ws',
      compacted: true,
      summarizedMessages: 4,
      messagesBefore: 6,
      messagesAfter: 3,
      model: 'local/small',
    });
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore + 40);
    const history = await fx.store.history('default:a:ws');
    expect(history).toEqual([
      {
        role: 'system',
        content: `${SUMMARY_PREFIX}\nThe user asked three questions about numbers.`,
        timestamp: T0 + 2000,
      },
      { role: 'user', content: 'question 3', timestamp: T0 + 3000 },
      { role: 'assistant', content: 'Echo: question 3', timestamp: T0 + 3000 },
    ]);
    expect(await fx.store.get('default:a:ws')).toMatchObject({
      messageCount: 3,
      metadata: { lastCompaction: { summarizedMessages: 4 } },
    });
    const sent = JSON.stringify(llm.chatRequests()[0]?.body);
    expect(sent).toContain('question 1');
    expect(sent).toContain('Echo: question 2');
    expect(sent).not.toContain('question 3');
  });

  it('leaves a short transcript alone without calling the model', async () => {
    fx = withRouter({ keepRecent: 6 });
    await converse(2);
    expect(await fx.sessions.compact('default:a:ws', signal)).toMatchObject({
      compacted: false,
      summarizedMessages: 0,
      messagesBefore: 4,
      messagesAfter: 4,
    });
    expect(llm.chatRequests()).toHaveLength(0);
  });

  it('keeps the transcript when the model fails or answers nothing', async () => {
    fx = withRouter({ keepRecent: 2 });
    await converse(3);
    llm.script({ text: '' });
    await expect(fx.sessions.compact('default:a:ws', signal)).rejects.toMatchObject({ kind: 'upstream_failed' });
    llm.script({ status: 400, errorMessage: 'bad request' });
    await expect(fx.sessions.compact('default:a:ws', signal)).rejects.toMatchObject({ kind: 'upstream_failed' });
    expect((await fx.store.get('default:a:ws'))?.messageCount).toBe(6);
  });

  it('reports unavailable when no model provider is wired, and not_found for an unknown session', async () => {
    fx = createServiceFixture({ options: { compactKeepRecent: 2 } });
    await converse(3);
    await expect(fx.sessions.compact('default:a:ws', signal)).rejects.toMatchObject({
      kind: 'unavailable',
      details: { reason: 'no_provider' },
    });
    await expect(fx.sessions.compact('default:none:ws', signal)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await fx.store.get('default:a:ws'))?.messageCount).toBe(6);
  });

  it('never starts the kept tail with tool results cut off from their call', () => {
    const at = (role: 'user' | 'assistant', content: string): TranscriptMessage => ({ role, content, timestamp: 0 });
    const messages: TranscriptMessage[] = [
      at('user', 'a'),
      at('assistant', 'b'),
      at('user', 'look it up'),
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'search', input: {} }], timestamp: 0 },
      { role: 'tool', toolCallId: 'c1', toolName: 'search', content: 'r1', isError: false, timestamp: 0 },
      { role: 'tool', toolCallId: 'c2', toolName: 'search', content: 'r2', isError: false, timestamp: 0 },
      at('assistant', 'found it'),
    ];
    expect(compactionBoundary(messages, 2)).toBe(3);
    expect(compactionBoundary(messages, 4)).toBe(3);
    expect(compactionBoundary(messages, 1)).toBe(6);
    expect(compactionBoundary(messages, 10)).toBe(0);
  });
});
