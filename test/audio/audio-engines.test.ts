// audio.transcribe's engine order through a started gateway: the keyed OpenAI-compatible engine against the fake
// server's /audio/transcriptions, fallback to pocketsphinx when it fails, no engine configured, and the voice
// evidence each leaves in obs.explain and obs.fleet.health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/index.js';
import { startFakeLlm, type FakeLlm, type TranscriptionForm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { PHRASE, PHRASE_KEY_WORDS, speak, type SpokenAudio } from './speech-fixtures.js';

const API_KEY = 'sk-fake-transcription-key';

interface Transcription {
  text: string;
  language?: string;
  durationMs?: number;
  error?: { kind: string; message: string };
}

describe('audio.transcribe engines', () => {
  let llm: FakeLlm;
  let speech: SpokenAudio;
  const harnesses: Harness[] = [];

  async function gateway(audio: ConfigInput['audio']): Promise<Harness> {
    const harness = await startGateway({
      audio,
      providers: {
        speech: { type: 'openai-compatible', baseUrl: llm.baseUrl, apiKey: API_KEY, models: [{ id: 'fake-model' }] },
        keyless: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] },
      },
      agents: { default: { name: 'Assistant', provider: 'speech', model: 'fake-model' } },
    });
    harnesses.push(harness);
    return harness;
  }
  async function transcribe(harness: Harness, params: Record<string, unknown>): Promise<Transcription> {
    const response = await callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as Transcription;
  }
  const voiceOf = async (harness: Harness) =>
    (
      (await callRpc(harness.url, harness.tokens.admin, 'obs.explain', { sessionKey: 'default:rpc-client:audio' }))
        .result as { voice?: unknown }
    ).voice;
  const transcriptionForms = () =>
    llm.requests
      .filter((request) => request.endpoint === 'transcriptions')
      .map((request) => request.body as TranscriptionForm | undefined);

  beforeAll(async () => {
    speech = await speak(PHRASE);
    llm = await startFakeLlm({ apiKey: API_KEY });
  }, 30_000);

  afterAll(async () => {
    for (const harness of harnesses) await harness.close();
    await llm?.close();
  });

  it('sends the decoded audio, model and language to the provider as multipart, with its key, and answers its text', async () => {
    llm.reset();
    const harness = await gateway({
      engines: [{ kind: 'openai-compatible', provider: 'speech', model: 'whisper-large' }, { kind: 'pocketsphinx' }],
    });
    llm.script({ endpoint: 'transcriptions', text: 'hello from the fake server' });
    const result = await transcribe(harness, {
      audio: speech.opus.toString('base64'),
      mimeType: 'audio/ogg; codecs=opus',
      language: 'en',
    });
    expect(result).toEqual({ text: 'hello from the fake server', language: 'en', durationMs: expect.any(Number) });
    expect(transcriptionForms()).toEqual([
      {
        model: 'whisper-large',
        language: 'en',
        responseFormat: 'json',
        file: { name: 'audio.wav', type: 'audio/wav', size: expect.any(Number), isWav: true },
        unknownFields: [],
      },
    ]);
    expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    // Keyed: no costUsd (spec), and the provider named in the config is an explicit choice.
    expect(await voiceOf(harness)).toEqual({
      provider: 'speech',
      keyless: false,
      model: 'whisper-large',
      durationMs: expect.any(Number),
      source: 'explicit',
      outcome: 'ok',
    });
  }, 60_000);

  it("defaults the model to whisper-1, sends no language when none is given, and follows the default agent's provider", async () => {
    llm.reset();
    const harness = await gateway({ engines: [{ kind: 'openai-compatible' }] });
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result).toEqual({ text: 'fake transcription', durationMs: expect.any(Number) });
    const [form] = transcriptionForms();
    expect(form).toMatchObject({ model: 'whisper-1', file: { isWav: true }, unknownFields: [] });
    expect(form).not.toHaveProperty('language');
    expect(await voiceOf(harness)).toMatchObject({
      provider: 'speech',
      keyless: false,
      source: 'follow-main-key',
      outcome: 'ok',
    });
  }, 60_000);

  it('falls back to pocketsphinx when the keyed engine is refused, and records the fallback', async () => {
    llm.reset();
    // The `keyless` provider sends no key, which this fake server answers with 401.
    const harness = await gateway({
      engines: [{ kind: 'openai-compatible', provider: 'keyless' }, { kind: 'pocketsphinx' }],
    });
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result.error).toBeUndefined();
    for (const word of PHRASE_KEY_WORDS) expect(result.text).toContain(word);
    expect(transcriptionForms()).toHaveLength(1);
    expect(llm.requests.at(-1)?.headers.authorization).toBeUndefined();
    expect(await voiceOf(harness)).toEqual({
      provider: 'pocketsphinx',
      keyless: true,
      model: 'en-us',
      durationMs: expect.any(Number),
      costUsd: 0,
      source: 'fallback',
      outcome: 'ok',
    });
  }, 60_000);

  it('answers the last failure as a result when every engine fails, and fleet health reports voice_health', async () => {
    llm.reset();
    const harness = await gateway({
      engines: [
        { kind: 'openai-compatible', provider: 'keyless' },
        { kind: 'openai-compatible', provider: 'speech' },
      ],
    });
    llm.script({ endpoint: 'transcriptions', status: 500 });
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result).toEqual({
      text: '',
      durationMs: expect.any(Number),
      error: { kind: 'network', message: 'keyless: answered HTTP 401; speech: answered HTTP 500' },
    });
    expect(await voiceOf(harness)).toMatchObject({
      provider: 'speech',
      keyless: false,
      source: 'fallback',
      outcome: 'failed',
      errorKind: 'network',
    });
    const health = (await callRpc(harness.url, harness.tokens.admin, 'obs.fleet.health', {})).result as {
      findings: { code: string; count: number; detail: string }[];
    };
    expect(health.findings.find((finding) => finding.code === 'voice_health')).toMatchObject({
      count: 1,
      detail: expect.stringContaining('dominant errorKind network'),
    });
  }, 60_000);

  it('reports an unreachable provider as network', async () => {
    const harness = await startGateway({
      audio: { engines: [{ kind: 'openai-compatible', provider: 'down' }] },
      // Port 1 on loopback: nothing listens there, so the connection is refused at once.
      providers: { down: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', apiKey: API_KEY } },
    });
    harnesses.push(harness);
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result.error).toEqual({ kind: 'network', message: 'down: could not be reached (ECONNREFUSED)' });
  }, 60_000);

  it('reports an unkeyed openai provider as auth_required without calling it', async () => {
    llm.reset();
    const harness = await startGateway({
      audio: { engines: [{ kind: 'openai-compatible', provider: 'openai' }] },
      providers: { openai: { type: 'openai', baseUrl: llm.baseUrl } },
    });
    harnesses.push(harness);
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result.error).toEqual({ kind: 'auth_required', message: "openai: Provider 'openai' has no apiKey" });
    expect(transcriptionForms()).toHaveLength(0);
  }, 60_000);

  it('answers no_keyless_engine when no engine is configured, and fleet health names it as the dominant errorKind', async () => {
    const harness = await gateway({ engines: [] });
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result).toEqual({
      text: '',
      error: { kind: 'no_keyless_engine', message: expect.stringContaining('audio.engines') },
    });
    expect(await voiceOf(harness)).toEqual({
      provider: 'none',
      keyless: true,
      costUsd: 0,
      outcome: 'failed',
      errorKind: 'no_keyless_engine',
    });
    const health = (await callRpc(harness.url, harness.tokens.admin, 'obs.fleet.health', {})).result as {
      findings: { code: string; detail: string; hint: string }[];
    };
    expect(health.findings.find((finding) => finding.code === 'voice_health')).toMatchObject({
      detail: expect.stringContaining('no_keyless_engine'),
    });
  });

  it('reports a missing recogniser as a dependency failure naming the package', async () => {
    const harness = await gateway({ engines: [{ kind: 'pocketsphinx', binary: 'pocketsphinx-not-installed' }] });
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result.error).toEqual({
      kind: 'dependency',
      message: expect.stringContaining('apt-get install pocketsphinx'),
    });
    expect(await voiceOf(harness)).toMatchObject({ outcome: 'failed', errorKind: 'dependency' });
  }, 60_000);

  it('answers timeout when the provider does not answer within audio.timeoutMs', async () => {
    llm.reset();
    const harness = await gateway({ engines: [{ kind: 'openai-compatible', provider: 'speech' }], timeoutMs: 1_500 });
    llm.script({ endpoint: 'transcriptions', delayMs: 30_000 });
    const result = await transcribe(harness, { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result.error).toEqual({ kind: 'timeout', message: 'speech: did not answer within 1500 ms' });
    expect(await voiceOf(harness)).toMatchObject({ outcome: 'failed', errorKind: 'timeout' });
  }, 60_000);

  it('answers timeout when decoding runs past audio.timeoutMs', async () => {
    const harness = await gateway({ engines: [{ kind: 'pocketsphinx' }], timeoutMs: 1 });
    const result = await transcribe(harness, { audio: speech.opus.toString('base64') });
    expect(result).toEqual({ text: '', error: { kind: 'timeout', message: expect.stringContaining('decoding') } });
  }, 60_000);
});
