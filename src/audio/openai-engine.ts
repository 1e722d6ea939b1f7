// The keyed engine: an OpenAI-compatible POST <baseUrl>/audio/transcriptions (multipart) of a configured provider.
import { z } from 'zod';
import type { EngineIdentity, EngineOutcome, Transcriber, VoiceErrorKind } from './transcriber.js';

/** A transcription answer is a little JSON; anything longer is not one. */
export const TRANSCRIPTION_RESPONSE_MAX_BYTES = 4_194_304;

export interface OpenAiEngineOptions {
  /** The provider's name in `providers:`, reported as the voice evidence's provider. */
  provider: string;
  /** Without a trailing slash, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
  source: EngineIdentity['source'];
}

const transcriptionSchema = z.object({ text: z.string(), language: z.string().optional() });

function kindOfStatus(status: number): VoiceErrorKind {
  if (status === 401 || status === 403) return 'auth_required';
  // An unknown model or a server without the endpoint.
  if (status === 404) return 'model_load_failed';
  return 'network';
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  maxBytes: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createOpenAiEngine(options: OpenAiEngineOptions): Transcriber {
  const identity: EngineIdentity = {
    provider: options.provider,
    keyless: options.apiKey === undefined,
    model: options.model,
    source: options.source,
  };
  const url = `${options.baseUrl}/audio/transcriptions`;
  const headers: Record<string, string> =
    options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` };
  return {
    identity,
    async transcribe({ wav, language, signal }): Promise<EngineOutcome> {
      // Loaded at the first transcription: a gateway that never transcribes never parses undici.
      const { FormData, request } = await import('./undici-upload.js');
      const form = new FormData();
      form.append('model', options.model);
      form.append('response_format', 'json');
      if (language !== undefined) form.append('language', language);
      // A copy on its own ArrayBuffer: what Blob takes under the DOM's types too (the dashboard's typecheck reads this file).
      form.append('file', new Blob([Uint8Array.from(wav)], { type: 'audio/wav' }), 'audio.wav');
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
      timer.unref();
      try {
        const response = await request(url, {
          method: 'POST',
          headers,
          body: form,
          signal: AbortSignal.any([signal, deadline.signal]),
        });
        const text = await readCapped(response.body, TRANSCRIPTION_RESPONSE_MAX_BYTES);
        if (response.statusCode >= 400) {
          return {
            ok: false,
            errorKind: kindOfStatus(response.statusCode),
            message: `answered HTTP ${response.statusCode}`,
          };
        }
        const parsed = text === undefined ? undefined : transcriptionSchema.safeParse(JSON.parse(text));
        if (parsed === undefined || !parsed.success) {
          return { ok: false, errorKind: 'network', message: 'answered something that is not a transcription' };
        }
        const answeredLanguage = parsed.data.language ?? language;
        return {
          ok: true,
          text: parsed.data.text.trim(),
          ...(answeredLanguage === undefined ? {} : { language: answeredLanguage }),
        };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (deadline.signal.aborted)
          return { ok: false, errorKind: 'timeout', message: `did not answer within ${options.timeoutMs} ms` };
        if (error instanceof SyntaxError) return { ok: false, errorKind: 'network', message: 'answered invalid JSON' };
        const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
        return { ok: false, errorKind: 'network', message: `could not be reached (${code})` };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
