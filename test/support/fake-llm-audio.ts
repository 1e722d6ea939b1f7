// The fake LLM server's OpenAI speech-to-text wire: POST /v1/audio/transcriptions, a multipart form it parses and checks.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { sendJson, type ScriptedReply } from './fake-llm-script.js';

/** What the fake server read from a transcription form; tests assert on it (it is the recorded request's body). */
export interface TranscriptionForm {
  model?: string;
  language?: string;
  responseFormat?: string;
  /** The `file` part, when it was a file. */
  file?: { name: string; type: string; size: number; isWav: boolean };
  /** Form fields that OpenAI's endpoint does not take. */
  unknownFields: string[];
}

const KNOWN_FIELDS = new Set(['model', 'language', 'response_format', 'file', 'prompt', 'temperature']);

/** Parses the multipart body as a real server would (Fetch's multipart parser); undefined when it is not one. */
export async function parseTranscriptionForm(
  headers: IncomingHttpHeaders,
  raw: Buffer,
): Promise<TranscriptionForm | undefined> {
  const contentType = headers['content-type'];
  if (contentType === undefined || !contentType.startsWith('multipart/form-data')) return undefined;
  let form: FormData;
  try {
    form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return undefined;
  }
  const text = (name: string): string | undefined => {
    const value = form.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  const file = form.get('file');
  let filePart: TranscriptionForm['file'];
  if (file !== null && typeof file !== 'string') {
    const bytes = Buffer.from(await file.arrayBuffer());
    filePart = {
      name: file.name,
      type: file.type,
      size: bytes.length,
      isWav: bytes.toString('ascii', 0, 4) === 'RIFF' && bytes.toString('ascii', 8, 12) === 'WAVE',
    };
  }
  return {
    ...(text('model') === undefined ? {} : { model: text('model') }),
    ...(text('language') === undefined ? {} : { language: text('language') }),
    ...(text('response_format') === undefined ? {} : { responseFormat: text('response_format') }),
    ...(filePart === undefined ? {} : { file: filePart }),
    unknownFields: [...new Set(form.keys())].filter((name) => !KNOWN_FIELDS.has(name)),
  };
}

/** OpenAI's 400 for a form it cannot use: no model, no file part, or fields it does not know. */
function formProblem(form: TranscriptionForm | undefined): string | undefined {
  if (form === undefined) return 'expected a multipart/form-data body';
  if (form.model === undefined || form.model.length === 0) return "missing required parameter 'model'";
  if (form.file === undefined || form.file.size === 0) return "missing required parameter 'file'";
  if (form.unknownFields.length > 0) return `unrecognized request argument supplied: ${form.unknownFields.join(', ')}`;
  return undefined;
}

/** Answers `{text}` (scripted `text`, default `fake transcription`), plus `language` when the form named one. */
export function answerTranscription(
  form: TranscriptionForm | undefined,
  res: ServerResponse,
  reply: ScriptedReply,
): void {
  const problem = formProblem(form);
  if (problem !== undefined) {
    sendJson(res, 400, { error: { message: problem, type: 'invalid_request_error', param: null, code: null } });
    return;
  }
  sendJson(
    res,
    200,
    { text: reply.text ?? 'fake transcription', ...(form?.language === undefined ? {} : { language: form.language }) },
    reply.headers,
  );
}
