// The audio: config section: documented defaults, engines in order, strict keys and a named unknown provider.
import { describe, expect, it } from 'vitest';
import { ConfigError, validateConfig } from '../../src/config/index.js';

function problemsOf(document: unknown): string {
  try {
    validateConfig(document, 'test.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('audio config', () => {
  it('defaults to the keyless pocketsphinx engine and the documented limits', () => {
    expect(validateConfig({}, 'empty').audio).toEqual({
      engines: [
        { kind: 'pocketsphinx', binary: 'pocketsphinx_continuous', modelDir: '/usr/share/pocketsphinx/model/en-us' },
      ],
      ffmpegPath: 'ffmpeg',
      maxAudioBytes: 524_288,
      maxDurationMs: 600_000,
      timeoutMs: 60_000,
      maxConcurrent: 2,
      maxWaiting: null,
      maxQueuedBytes: 8_388_608,
    });
  });

  it('keeps the engines in the order listed, filling the keyed model with whisper-1', () => {
    const { audio } = validateConfig(
      {
        providers: { openai: { type: 'openai', apiKey: 'sk-test' } },
        audio: { engines: [{ kind: 'openai-compatible', provider: 'openai' }, { kind: 'pocketsphinx' }] },
      },
      'ordered',
    );
    expect(audio.engines.map((engine) => engine.kind)).toEqual(['openai-compatible', 'pocketsphinx']);
    expect(audio.engines[0]).toEqual({ kind: 'openai-compatible', provider: 'openai', model: 'whisper-1' });
  });

  it('accepts no engines at all (every call then answers no_keyless_engine)', () => {
    expect(validateConfig({ audio: { engines: [] } }, 'none').audio.engines).toEqual([]);
  });

  it('refuses an unknown provider, an unknown engine kind, unknown keys and bad bounds, naming the key', () => {
    expect(problemsOf({ audio: { engines: [{ kind: 'openai-compatible', provider: 'missing' }] } })).toMatch(
      /audio\.engines\[0\]\.provider.*unknown provider 'missing'/,
    );
    expect(problemsOf({ audio: { engines: [{ kind: 'whisper-cpp' }] } })).toContain('audio.engines[0]');
    expect(problemsOf({ audio: { engines: [{ kind: 'pocketsphinx', model: 'x' }] } })).toContain('audio.engines[0]');
    expect(problemsOf({ audio: { maxConcurrent: 0 } })).toContain('audio.maxConcurrent');
    expect(problemsOf({ audio: { maxWaiting: -1 } })).toContain('audio.maxWaiting');
    expect(problemsOf({ audio: { maxQueuedBytes: 0 } })).toContain('audio.maxQueuedBytes');
    expect(problemsOf({ audio: { timeoutMs: 2_147_483_648 } })).toMatch(/audio\.timeoutMs.*2147483647/);
    expect(problemsOf({ audio: { engine: [] } })).toContain('audio');
  });
});
