// audio.transcribe through a started gateway with the keyless pocketsphinx engine: speech from espeak-ng as WAV and
// ogg/opus, undecodable input, payload limits, owner-checked session keys, and the voice evidence in the reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxParamsBytesFor } from '../../src/audio/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, tokensWithRpcTenants, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { PHRASE, PHRASE_KEY_WORDS, speak, type SpokenAudio } from './speech-fixtures.js';

const MAX_AUDIO_BYTES = 200_000;

interface Transcription {
  text: string;
  language?: string;
  durationMs?: number;
  error?: { kind: string; message: string };
}

describe('audio.transcribe with pocketsphinx', () => {
  let harness: Harness;
  let speech: SpokenAudio;
  let llm: FakeLlm;

  async function transcribe(params: Record<string, unknown>, token = harness.tokens.rpc): Promise<Transcription> {
    const response = await callRpc(harness.url, token, 'audio.transcribe', params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as Transcription;
  }
  const explain = async (sessionKey: string) =>
    (await callRpc(harness.url, harness.tokens.admin, 'obs.explain', { sessionKey })).result as Record<string, unknown>;

  beforeAll(async () => {
    speech = await speak(PHRASE);
    llm = await startFakeLlm();
    harness = await startGateway({
      // The rpc token records into keys of tenant acme, which it is given.
      gateway: { tokens: tokensWithRpcTenants(['acme']) },
      audio: { engines: [{ kind: 'pocketsphinx' }], maxAudioBytes: MAX_AUDIO_BYTES },
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('transcribes spoken WAV: the key words, English, and the length from the decoded samples', async () => {
    const result = await transcribe({ audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    expect(result.error).toBeUndefined();
    for (const word of PHRASE_KEY_WORDS) expect(result.text).toContain(word);
    expect(result.language).toBe('en');
    expect(Math.abs((result.durationMs ?? 0) - speech.durationMs)).toBeLessThanOrEqual(20);
  }, 60_000);

  it('with save: true keeps the decoded WAV as media, served at /media/:id and listed in obs.explain offloads', async () => {
    const result = (await transcribe({
      audio: speech.opus.toString('base64'),
      save: true,
      sessionKey: 'default:saver:audio',
    })) as Transcription & { mediaId?: string };
    expect(result.error).toBeUndefined();
    const served = await fetch(`${harness.url}/media/${result.mediaId ?? ''}`, {
      headers: { authorization: `Bearer ${harness.tokens.rpc}` },
    });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('audio/wav');
    expect(
      Buffer.from(await served.arrayBuffer())
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('RIFF');
    expect((await explain('default:saver:audio')).offloads).toEqual([
      expect.objectContaining({ toolName: 'audio.transcribe' }),
    ]);
  }, 60_000);

  it('transcribes the same speech as ogg/opus, the default mimeType', async () => {
    const result = await transcribe({ audio: speech.opus.toString('base64') });
    expect(result.error).toBeUndefined();
    for (const word of PHRASE_KEY_WORDS) expect(result.text).toContain(word);
    expect(result.durationMs).toBeGreaterThan(speech.durationMs - 100);
  }, 60_000);

  it('transcribes opus in webm (audio/webm) and decodes mp3 (audio/mpeg) to its full length', async () => {
    const webm = await transcribe({ audio: speech.webm.toString('base64'), mimeType: 'audio/webm' });
    expect(webm.error).toBeUndefined();
    for (const word of PHRASE_KEY_WORDS) expect(webm.text).toContain(word);
    // The recogniser's words from an mp3 of synthetic speech vary; that it decoded whole is what is checked.
    const mp3 = await transcribe({ audio: speech.mp3.toString('base64'), mimeType: 'audio/mpeg' });
    expect(mp3.error).toBeUndefined();
    expect(mp3.durationMs).toBeGreaterThan(speech.durationMs - 100);
  }, 60_000);

  it('tells the format from the bytes when the mimeType is wrong (WAV sent as the default audio/ogg)', async () => {
    const result = await transcribe({ audio: speech.wav.toString('base64') });
    expect(result.error).toBeUndefined();
    expect(result.text).toContain('president');
  }, 60_000);

  it('answers a result with error kind invalid_audio for a corrupt file, not an RPC error', async () => {
    const corrupt = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(2000, 0x5a)]);
    const result = await transcribe({ audio: corrupt.toString('base64'), mimeType: 'audio/ogg' });
    expect(result).toEqual({
      text: '',
      error: { kind: 'invalid_audio', message: expect.stringContaining('could not be decoded') },
    });
    expect(result.error?.message).not.toContain('/tmp');
  }, 60_000);

  it('answers a model_load_failed result for a language the local model does not have', async () => {
    const result = await transcribe({ audio: speech.wav.toString('base64'), mimeType: 'audio/wav', language: 'fr' });
    expect(result).toMatchObject({
      text: '',
      durationMs: expect.any(Number),
      error: { kind: 'model_load_failed', message: expect.stringContaining("language 'fr'") },
    });
  }, 60_000);

  it('refuses params over the method limit with -32602 naming the limit, before decoding', async () => {
    const audio = Buffer.alloc(MAX_AUDIO_BYTES * 2, 1).toString('base64');
    const response = await callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', { audio });
    const limit = maxParamsBytesFor(MAX_AUDIO_BYTES);
    expect(response.error).toEqual({
      code: -32602,
      message: `Invalid params: params of audio.transcribe exceed its limit of ${limit} bytes (policy.maxParamsBytes)`,
      data: { kind: 'invalid_params', param: 'params' },
    });
  });

  it('refuses audio just over audio.maxAudioBytes (inside the params limit) with -32602 naming the key', async () => {
    const response = await callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', {
      audio: Buffer.alloc(MAX_AUDIO_BYTES + 1).toString('base64'),
    });
    expect(response.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('audio.maxAudioBytes (200000)'),
      data: { param: 'audio' },
    });
  });

  it('refuses bad base64, a bad mimeType or language, and unknown params with -32602 naming the param', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ audio: 'not base64!' }, 'audio'],
      [{ audio: 'abc' }, 'audio'],
      [{ audio: 'AAAA', mimeType: 'ogg' }, 'mimeType'],
      [{ audio: 'AAAA', language: 'english please' }, 'language'],
      [{ audio: 'AAAA', sessionKey: 'no-colons' }, 'sessionKey'],
      [{ audio: 'AAAA', format: 'ogg' }, 'format'],
      [{}, 'audio'],
    ];
    for (const [params, param] of cases) {
      const response = await callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', params);
      expect(response.error, JSON.stringify(params)).toMatchObject({
        code: -32602,
        data: { kind: 'invalid_params', param },
      });
    }
  });

  it('needs the rpc scope', async () => {
    const response = await callRpc(harness.url, harness.tokens.adminOnly, 'audio.transcribe', { audio: 'AAAA' });
    expect(response.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
  });

  it('records the voice evidence under default:<clientId>:audio: obs.explain shows the voice block', async () => {
    await transcribe({ audio: speech.wav.toString('base64'), mimeType: 'audio/wav' });
    const report = await explain('default:rpc-client:audio');
    expect(report.voice).toEqual({
      provider: 'pocketsphinx',
      keyless: true,
      model: 'en-us',
      durationMs: expect.any(Number),
      costUsd: 0,
      source: 'keyless-local',
      outcome: 'ok',
    });
  }, 60_000);

  it('refuses a given sessionKey no session has yet in a tenant the token is not given, or naming another token', async () => {
    for (const sessionKey of ['globex:alice:voice', 'default:admin:audio']) {
      const refused = await callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', {
        audio: speech.wav.toString('base64'),
        sessionKey,
      });
      expect(refused.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
      expect((await explain(sessionKey)).voice).toBeUndefined();
    }
  }, 60_000);

  it("records under a given sessionKey, and refuses another token's session with -32603 forbidden", async () => {
    const sessionKey = 'acme:alice:voice';
    const result = await transcribe({
      audio: speech.wav.toString('base64'),
      mimeType: 'audio/wav',
      sessionKey,
      language: 'fr',
    });
    expect(result.error?.kind).toBe('model_load_failed');
    expect((await explain(sessionKey)).voice).toMatchObject({
      provider: 'pocketsphinx',
      outcome: 'failed',
      errorKind: 'model_load_failed',
      durationMs: expect.any(Number),
    });

    // A session created by the admin token belongs to it: the rpc token may not record into it.
    const owned = 'acme:bob:chat';
    const created = await callRpc(harness.url, harness.tokens.admin, 'session.send', { key: owned, message: 'hello' });
    expect(created.error).toBeUndefined();
    const refused = await callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', {
      audio: speech.wav.toString('base64'),
      sessionKey: owned,
    });
    expect(refused.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
  }, 60_000);
});
