// Served context windows read from the provider's wire: OpenAI-style model lists, Ollama's /api/show, else unknown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig, type ConfigInput } from '../../src/config/index.js';
import { discoverServedWindows } from '../../src/providers/served-window.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';

type ProviderInput = NonNullable<ConfigInput['providers']>[string];
const providerConfig = (input: ProviderInput) => {
  const config = validateConfig({ providers: { p: input } }, 'test').providers.p;
  if (config === undefined) throw new Error('no provider');
  return config;
};
const signal = new AbortController().signal;

describe('served context window discovery', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm({
      models: ['vllm-model', 'router-model', 'studio-model', 'ollama-model', 'plain-model'],
      apiKey: 'sk-test-key',
      modelFields: {
        'vllm-model': { max_model_len: 8192 },
        'router-model': { context_length: 200_000 },
        'studio-model': { max_context_length: 4096 },
        'plain-model': { max_model_len: 'lots' },
      },
      ollamaParameters: {
        'ollama-model': 'stop "<|eot|>"\nnum_ctx 2048\ntemperature 0.7',
        'plain-model': 'temperature 0.7',
      },
    });
  });
  afterAll(async () => {
    await llm.close();
  });

  it('reads the window fields of an OpenAI-style model list, with the API key, and Ollama num_ctx for the rest', async () => {
    const config = providerConfig({ type: 'openai-compatible', baseUrl: llm.baseUrl, apiKey: 'sk-test-key' });
    const found = await discoverServedWindows(
      config,
      ['vllm-model', 'router-model', 'studio-model', 'ollama-model', 'plain-model', 'missing'],
      { signal },
    );
    expect(Object.fromEntries(found)).toEqual({
      'vllm-model': 8192,
      'router-model': 200_000,
      'studio-model': 4096,
      'ollama-model': 2048,
    });
  });

  it('never throws: an unreachable, refusing or silent provider leaves every window unknown', async () => {
    const unreachable = providerConfig({ type: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' });
    expect((await discoverServedWindows(unreachable, ['vllm-model'], { signal })).size).toBe(0);
    const refused = providerConfig({ type: 'openai', baseUrl: llm.baseUrl, apiKey: 'wrong-key' });
    expect((await discoverServedWindows(refused, ['vllm-model'], { signal })).size).toBe(0);
    const anthropic = providerConfig({ type: 'anthropic', baseUrl: llm.baseUrl, apiKey: 'sk-test-key' });
    expect((await discoverServedWindows(anthropic, ['vllm-model'], { signal })).size).toBe(0);
    const aborted = AbortSignal.abort();
    const config = providerConfig({ type: 'openai-compatible', baseUrl: llm.baseUrl, apiKey: 'sk-test-key' });
    expect((await discoverServedWindows(config, ['vllm-model'], { signal: aborted })).size).toBe(0);
  });
});
