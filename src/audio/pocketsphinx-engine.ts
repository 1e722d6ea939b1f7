// The keyless local engine: Debian's pocketsphinx_continuous (0.8) with the en-us model, offline.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { runProcess } from './run-process.js';
import type { EngineIdentity, EngineOutcome, Transcriber } from './transcriber.js';

export const POCKETSPHINX_PROVIDER = 'pocketsphinx';
/** The model directory Debian's pocketsphinx-en-us installs holds only English. */
const MODEL_LANGUAGE = 'en';

export interface PocketsphinxOptions {
  binary: string;
  modelDir: string;
  timeoutMs: number;
  /** `keyless-local` when listed first, else `fallback`. */
  source: EngineIdentity['source'];
}

function modelFiles(modelDir: string) {
  return {
    hmm: join(modelDir, 'en-us'),
    lm: join(modelDir, 'en-us.lm.bin'),
    dict: join(modelDir, 'cmudict-en-us.dict'),
  };
}

async function missingFile(paths: readonly string[]): Promise<string | undefined> {
  for (const path of paths) {
    try {
      await access(path);
    } catch {
      return path;
    }
  }
  return undefined;
}

export function createPocketsphinxEngine(options: PocketsphinxOptions): Transcriber {
  const files = modelFiles(options.modelDir);
  const identity: EngineIdentity = {
    provider: POCKETSPHINX_PROVIDER,
    keyless: true,
    model: 'en-us',
    source: options.source,
  };
  return {
    identity,
    async transcribe({ wavPath, language, signal }): Promise<EngineOutcome> {
      if (language !== undefined && language.toLowerCase().split('-')[0] !== MODEL_LANGUAGE) {
        return {
          ok: false,
          errorKind: 'model_load_failed',
          message: `pocketsphinx has no model for language '${language}' (only en)`,
        };
      }
      const missing = await missingFile([files.hmm, files.lm, files.dict]);
      if (missing !== undefined) {
        return {
          ok: false,
          errorKind: 'model_load_failed',
          message: `pocketsphinx model file ${missing} is missing: install pocketsphinx-en-us or set audio.engines[].modelDir`,
        };
      }
      // -logfn keeps pocketsphinx's verbose log off stdout, where only the hypothesis lines remain.
      const args = ['-infile', wavPath, '-hmm', files.hmm, '-lm', files.lm, '-dict', files.dict, '-logfn', '/dev/null'];
      const outcome = await runProcess(options.binary, args, { timeoutMs: options.timeoutMs, signal });
      if (outcome.ok) {
        const text = outcome.stdout
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line.length > 0)
          .join(' ');
        return { ok: true, text, language: language ?? MODEL_LANGUAGE };
      }
      if (outcome.reason === 'missing') {
        return {
          ok: false,
          errorKind: 'dependency',
          message: `${outcome.detail}: install pocketsphinx and pocketsphinx-en-us (apt-get install pocketsphinx pocketsphinx-en-us)`,
        };
      }
      if (outcome.reason === 'timeout') return { ok: false, errorKind: 'timeout', message: outcome.detail };
      return { ok: false, errorKind: 'model_load_failed', message: `pocketsphinx failed: ${outcome.detail}` };
    },
  };
}
