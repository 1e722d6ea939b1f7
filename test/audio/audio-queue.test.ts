// The audio waiting queue through a started gateway: with audio.maxConcurrent 1 and a held upstream engine, the
// default bound (4 × maxConcurrent) of calls wait, the next one is refused unavailable with retryAfterMs (JSON-RPC
// error.data.retryAfterMs), and the waiting ones all finish once the engine answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { PHRASE, speak, type SpokenAudio } from './speech-fixtures.js';

const API_KEY = 'sk-fake-transcription-key';

describe('audio.transcribe waiting queue', () => {
  let llm: FakeLlm;
  let speech: SpokenAudio;
  let harness: Harness;

  beforeAll(async () => {
    speech = await speak(PHRASE);
    llm = await startFakeLlm({ apiKey: API_KEY });
    harness = await startGateway({
      gateway: { rateLimit: { maxRequests: 10_000 } },
      audio: { engines: [{ kind: 'openai-compatible', provider: 'speech' }], maxConcurrent: 1 },
      providers: {
        speech: { type: 'openai-compatible', baseUrl: llm.baseUrl, apiKey: API_KEY, models: [{ id: 'fake-model' }] },
      },
      agents: { default: { name: 'Assistant', provider: 'speech', model: 'fake-model' } },
    });
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  const transcribe = () =>
    callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', {
      audio: speech.wav.toString('base64'),
      mimeType: 'audio/wav',
    });

  it('refuses the call past the bound with unavailable and retryAfterMs while the others finish', async () => {
    // audio.maxWaiting unset: 4 × maxConcurrent calls may wait.
    const bound = 4;
    let release: () => void = () => undefined;
    llm.script({
      endpoint: 'transcriptions',
      text: 'first call',
      heldUntil: new Promise<void>((resolve) => (release = resolve)),
    });
    const first = transcribe();
    await expect
      .poll(() => llm.requests.filter((request) => request.endpoint === 'transcriptions').length, { timeout: 30_000 })
      .toBe(1);

    // The first call holds the only slot until released; of the bound + 1 calls sent now, exactly one finds the queue full.
    const rest = Array.from({ length: bound + 1 }, () => transcribe());
    const earliest = await Promise.race(rest);
    expect(earliest.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining('audio.maxWaiting'),
      data: { kind: 'unavailable', retryAfterMs: expect.any(Number) },
    });
    release();

    expect((await first).result).toMatchObject({ text: 'first call' });
    const answers = await Promise.all(rest);
    const refused = answers.filter((answer) => answer.error !== undefined);
    expect(refused).toHaveLength(1);
    expect(answers.filter((answer) => answer.result !== undefined)).toHaveLength(bound);
    for (const answer of answers)
      if (answer.result !== undefined) expect(answer.result).toMatchObject({ text: 'fake transcription' });
    expect(llm.requests.filter((request) => request.endpoint === 'transcriptions')).toHaveLength(bound + 1);
  }, 60_000);
});
