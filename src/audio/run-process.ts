// Runs one local program (ffmpeg, pocketsphinx) without a shell, under a time limit and the caller's signal.
import { execFile } from 'node:child_process';

/** stdout and stderr kept per process; the recogniser prints one line of text, the decoder nothing. */
export const PROCESS_OUTPUT_MAX_BYTES = 1_048_576;

export type ProcessOutcome =
  | { ok: true; stdout: string }
  /** `missing`: the program is not installed (ENOENT); `timeout`: killed after timeoutMs; `failed`: it exited non-zero. */
  | { ok: false; reason: 'missing' | 'timeout' | 'failed'; detail: string };

export interface RunProcessOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Written to the program's stdin, which is then closed; without it stdin is closed at once. */
  stdin?: Buffer;
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines.at(-1) ?? '').slice(0, 200);
}

export function runProcess(
  file: string,
  args: readonly string[],
  { timeoutMs, signal, stdin }: RunProcessOptions,
): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      {
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: PROCESS_OUTPUT_MAX_BYTES,
        signal,
        windowsHide: true,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ ok: true, stdout });
          return;
        }
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        const { code, killed } = error;
        if (code === 'ENOENT') resolve({ ok: false, reason: 'missing', detail: `${file} is not installed` });
        else if (killed === true)
          resolve({ ok: false, reason: 'timeout', detail: `${file} did not finish within ${timeoutMs} ms` });
        else
          resolve({ ok: false, reason: 'failed', detail: lastLine(stderr) || `${file} exited with ${String(code)}` });
      },
    );
    // A program may exit before reading all its input (ffmpeg stops at maxDurationMs): the broken pipe is not a failure,
    // the exit status says how it went.
    child.stdin?.on('error', () => undefined);
    if (stdin === undefined) child.stdin?.end();
    else child.stdin?.end(stdin);
  });
}
