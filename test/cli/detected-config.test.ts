// What a first start writes for what it found: the documented preference order for the default agent and embeddings,
// provider names for repeated server kinds, and entries already configured kept.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import type { Findings } from '../../src/cli/detect-models.js';
import { NOTHING_CONFIGURED, planDetected, sectionsOf } from '../../src/cli/detected-config.js';

const ollama = {
  kind: 'ollama',
  url: 'http://127.0.0.1:11434',
  models: ['nomic-embed-text:latest', 'qwen3:8b'],
} as const;
const vllm = { kind: 'vllm', url: 'http://127.0.0.1:8000', models: ['org/model-7b'] } as const;

function findings(partial: Partial<Findings>): Findings {
  return { keys: [], servers: [], ...partial };
}

describe('planDetected', () => {
  it('puts the agent on OpenAI before Anthropic, Gemini and local servers; embeddings on OpenAI', () => {
    const plan = planDetected(
      findings({
        keys: [
          { type: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY' },
          { type: 'openai', keyEnv: 'OPENAI_API_KEY' },
        ],
        servers: [{ ...ollama, models: [...ollama.models] }],
      }),
      NOTHING_CONFIGURED,
    );
    expect(plan.agent).toEqual({ provider: 'openai', model: 'gpt-4.1-mini' });
    expect(plan.embeddings).toEqual({ provider: 'openai', model: 'text-embedding-3-small' });
    expect(Object.keys(plan.providers).sort()).toEqual(['anthropic', 'ollama', 'openai']);
  });

  it('without an OpenAI key: embeddings on a local embedding model before Gemini; the agent on Gemini', () => {
    const plan = planDetected(
      findings({
        keys: [{ type: 'google', keyEnv: 'GEMINI_API_KEY' }],
        servers: [{ ...ollama, models: [...ollama.models] }],
      }),
      NOTHING_CONFIGURED,
    );
    expect(plan.agent).toEqual({ provider: 'gemini', model: 'gemini-2.5-flash' });
    expect(plan.embeddings).toEqual({ provider: 'ollama', model: 'nomic-embed-text:latest' });
    expect(plan.providers.ollama).toEqual({
      type: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:11434/v1',
      models: [{ id: 'qwen3:8b' }],
    });
  });

  it('local servers only: the first in probe order with a chat model; a repeated kind is named by its port', () => {
    const plan = planDetected(
      findings({
        servers: [
          { kind: 'ollama', url: 'http://127.0.0.1:11434', models: ['all-minilm'] },
          { ...vllm, models: [...vllm.models] },
          { kind: 'vllm', url: 'http://127.0.0.1:8001', models: ['other'] },
        ],
      }),
      NOTHING_CONFIGURED,
    );
    expect(plan.agent).toEqual({ provider: 'vllm', model: 'org/model-7b' });
    expect(plan.embeddings).toEqual({ provider: 'ollama', model: 'all-minilm' });
    expect(Object.keys(plan.providers)).toEqual(['ollama', 'vllm', 'vllm-8001']);
  });

  it('keeps a provider, the default agent and embeddings already configured, and says so', () => {
    const plan = planDetected(findings({ keys: [{ type: 'openai', keyEnv: 'OPENAI_API_KEY' }] }), {
      providers: new Set(['openai']),
      agents: new Set(),
      hasEmbeddings: false,
    });
    expect(plan).toEqual({ providers: {}, kept: ['providers.openai'] });
    const another = planDetected(findings({ keys: [{ type: 'openai', keyEnv: 'OPENAI_API_KEY' }] }), {
      providers: new Set(),
      agents: new Set(['default']),
      hasEmbeddings: true,
    });
    expect(another.kept).toEqual(['agents.default', 'embeddings']);
    expect(another.agent).toBeUndefined();
    expect(another.embeddings).toBeUndefined();
  });

  it('writes sections the config schema accepts, keys as ${ENV} references', () => {
    const plan = planDetected(
      findings({
        keys: [
          { type: 'openai', keyEnv: 'OPENAI_API_KEY', baseUrlEnv: 'OPENAI_BASE_URL' },
          { type: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY' },
          { type: 'google', keyEnv: 'GEMINI_API_KEY' },
        ],
        servers: [{ ...ollama, models: [...ollama.models] }],
      }),
      NOTHING_CONFIGURED,
    );
    const sections = sectionsOf(plan);
    expect(sections).toMatchObject({
      providers: { openai: { apiKey: '${OPENAI_API_KEY}', baseUrl: '${OPENAI_BASE_URL}' } },
    });
    // As loaded with the references resolved: a URL for the base URL, any text for a key.
    const resolved = JSON.parse(
      JSON.stringify(sections)
        .replaceAll('${OPENAI_BASE_URL}', 'http://127.0.0.1:9/v1')
        .replace(/\$\{[A-Z_]+\}/g, 'key'),
    ) as Record<string, unknown>;
    expect(() => validateConfig(resolved, 'detected')).not.toThrow();
  });
});
