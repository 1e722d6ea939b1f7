// Adding a provider type is one row of the provider table: with a `fake-chat` row added (the real table plus one
// entry, as a new type's author would write it), the config accepts the type and the router calls it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { isGatewayError } from '../../src/errors.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callRequest, collect, silentLog, textOf } from './router-fixture.js';

vi.mock('../../src/provider-table.js', async (importOriginal) => {
  const table = await importOriginal<typeof import('../../src/provider-table.js')>();
  const fakeChat = {
    protocol: 'openai-chat',
    defaultBaseUrl: 'http://127.0.0.1:9/v1',
    requiresMaxTokens: false,
    canEmbed: false,
    canTranscribe: false,
    selfHosted: true,
    honours: table.CALL_FIELDS.filter((field) => field !== 'sampling.seed'),
  };
  return {
    ...table,
    PROVIDER_TYPES: [...table.PROVIDER_TYPES, 'fake-chat'],
    PROVIDER_TABLE: { ...table.PROVIDER_TABLE, 'fake-chat': fakeChat },
  };
});

// Imported after the mock is declared (vi.mock is hoisted above every import anyway).
const { createModelRouter } = await import('../../src/providers/index.js');
const { createEventBus } = await import('../../src/obs/index.js');

describe('a provider type added as a table row', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  const documentOf = (extra: Record<string, unknown> = {}) => ({
    providers: { fake: { type: 'fake-chat', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
    ...extra,
  });

  it('is accepted by config validation, with the capabilities of its row', () => {
    expect(validateConfig(documentOf(), 'test').providers.fake?.type).toBe('fake-chat');
    expect(() => validateConfig(documentOf({ embeddings: { provider: 'fake', model: 'm' } }), 'test')).toThrow(
      /'fake' is a fake-chat provider, which has no embeddings endpoint/,
    );
  });

  it('is routed through the protocol its row names, refusing the settings it does not honour', async () => {
    const config = validateConfig(documentOf(), 'test');
    const router = createModelRouter({
      config: config.providers,
      events: createEventBus({ now: Date.now, log: silentLog }),
      log: silentLog,
    });
    try {
      llm.script({ text: 'hello from the new type' });
      const ref = { provider: 'fake', modelId: 'fake-model' };
      const { events, error } = await collect(router.stream(callRequest(ref)));
      expect(error).toBeUndefined();
      expect(textOf(events)).toBe('hello from the new type');
      expect(llm.chatRequests()).toHaveLength(1);

      const refused = await collect(router.stream(callRequest(ref, { settings: { seed: 1 } })));
      expect(isGatewayError(refused.error) ? refused.error.message : refused.error).toMatch(/seed/);
      expect(llm.chatRequests()).toHaveLength(1);
    } finally {
      await router.close();
    }
  });
});
