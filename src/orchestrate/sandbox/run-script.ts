// runScript: one orchestrate script run in its own child process, from taking the child to the child's death. Tool
// calls are answered here through the caller's callTool; the run ends once, for the first reason, and never rejects.
import { performance } from 'node:perf_hooks';
import { takeScriptChild } from './child-pool.js';
import { ScriptChildProcess } from './child-process.js';
import {
  SCRIPT_EXIT_CODES,
  SCRIPT_MAX_CHARS,
  SCRIPT_STDOUT_MAX_BYTES,
  SCRIPT_TOOL_RESULT_MAX_CHARS,
  boundText,
  limitsSchema,
  type ChildMessage,
} from './protocol.js';
import type { ScriptFailureClass, ScriptRunOptions, ScriptRunResult } from './types.js';

/** How long a child may take to start node and load QuickJS before the run is a spawn_fail. */
const CHILD_START_TIMEOUT_MS = 15_000;
/**
 * How long after the deadline the gateway kills a child that has not ended the script itself. The child's own
 * interrupt ends a busy script at the deadline and then writes out the stdout lines the busy loop held back; killing it
 * at the very deadline would lose them.
 */
const TIMEOUT_KILL_GRACE_MS = 200;

interface Ending {
  exitCode: number;
  failureClass?: ScriptFailureClass;
  error?: string;
  result?: unknown;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

export async function runScript(options: ScriptRunOptions): Promise<ScriptRunResult> {
  const startedAt = performance.now();
  const elapsed = () => Math.round((performance.now() - startedAt) * 100) / 100;
  const { signal } = options;
  // Only the four limits travel to the child (the caller's object may carry more).
  const { timeoutMs, memoryBytes, stdoutBytes, maxToolCalls } = options.limits;
  const limits = { timeoutMs, memoryBytes, stdoutBytes, maxToolCalls };
  const refusal =
    options.script.length > SCRIPT_MAX_CHARS
      ? `the script is longer than ${SCRIPT_MAX_CHARS} characters`
      : limitsSchema.safeParse(limits).success
        ? undefined
        : `the limits are invalid: whole numbers, timeoutMs and memoryBytes above 0, stdoutBytes at most ${SCRIPT_STDOUT_MAX_BYTES}`;
  if (refusal !== undefined) {
    return {
      exitCode: SCRIPT_EXIT_CODES.threw,
      failureClass: 'nonzero_exit',
      error: refusal,
      stdout: '',
      durationMs: elapsed(),
      toolCalls: 0,
    };
  }
  if (signal?.aborted === true) {
    const error = boundText(`aborted: ${describe(signal.reason)}`);
    return {
      exitCode: SCRIPT_EXIT_CODES.aborted,
      failureClass: 'nonzero_exit',
      error,
      stdout: '',
      durationMs: elapsed(),
      toolCalls: 0,
    };
  }
  let child: ScriptChildProcess;
  try {
    child = options.nodePath === undefined ? takeScriptChild() : new ScriptChildProcess(options.nodePath);
  } catch (error) {
    const message = boundText(`the script child could not start: ${describe(error)}`);
    return {
      exitCode: SCRIPT_EXIT_CODES.spawnFailed,
      failureClass: 'spawn_fail',
      error: message,
      stdout: '',
      durationMs: elapsed(),
      toolCalls: 0,
    };
  }
  return new ScriptRun(child, { ...options, limits }, elapsed).finished;
}

class ScriptRun {
  readonly finished: Promise<ScriptRunResult>;
  readonly #child: ScriptChildProcess;
  readonly #options: ScriptRunOptions;
  readonly #elapsed: () => number;
  /** Aborted when the run ends, for the callTool calls still pending. */
  readonly #callsAbort = new AbortController();
  #resolve: ((result: ScriptRunResult) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stdout = '';
  #stdoutBytes = 0;
  #toolCalls = 0;
  #firstToolCallMs: number | undefined;
  #running = false;
  #ended = false;

  constructor(child: ScriptChildProcess, options: ScriptRunOptions, elapsed: () => number) {
    this.#child = child;
    this.#options = options;
    this.#elapsed = elapsed;
    this.finished = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
    child.setRef(true);
    child.attach(
      (message) => this.#onMessage(message),
      (reason) => {
        const failure = this.#running
          ? { exitCode: SCRIPT_EXIT_CODES.childFailed, failureClass: 'nonzero_exit' as const, error: boundText(reason) }
          : { exitCode: SCRIPT_EXIT_CODES.spawnFailed, failureClass: 'spawn_fail' as const, error: boundText(reason) };
        void this.#end(failure);
      },
    );
    this.#timer = setTimeout(() => {
      void this.#end({
        exitCode: SCRIPT_EXIT_CODES.spawnFailed,
        failureClass: 'spawn_fail',
        error: `the script child did not start within ${CHILD_START_TIMEOUT_MS} ms`,
      });
    }, CHILD_START_TIMEOUT_MS);
    this.#timer.unref();
    child.ready.then(
      () => this.#start(),
      () => undefined,
    );
  }

  #start(): void {
    if (this.#ended) return;
    clearTimeout(this.#timer);
    this.#running = true;
    const { script, limits } = this.#options;
    this.#child.send({ type: 'run', script, limits });
    // The child stops itself at the same deadline; this kill covers a child that does not (or is waiting on a tool).
    this.#timer = setTimeout(() => {
      void this.#end({
        exitCode: SCRIPT_EXIT_CODES.timeout,
        failureClass: 'timeout',
        error: `the script ran longer than ${limits.timeoutMs} ms`,
      });
    }, limits.timeoutMs + TIMEOUT_KILL_GRACE_MS);
    this.#timer.unref();
  }

  readonly #onAbort = (): void => {
    const error = boundText(`aborted: ${describe(this.#options.signal?.reason)}`);
    void this.#end({ exitCode: SCRIPT_EXIT_CODES.aborted, failureClass: 'nonzero_exit', error });
  };

  #onMessage(message: ChildMessage): void {
    // Once ended, only stdout still counts: the lines a killed child wrote before its end are read while it dies.
    if (this.#ended) {
      if (message.type === 'stdout' && this.#resolve !== undefined) this.#appendStdout(message.text);
      return;
    }
    if (!this.#running) {
      void this.#end({
        exitCode: SCRIPT_EXIT_CODES.childFailed,
        failureClass: 'nonzero_exit',
        error: 'the script child spoke before it was given a script',
      });
    } else if (message.type === 'stdout') this.#onStdout(message.text);
    else if (message.type === 'tool_call') void this.#onToolCall(message.id, message.tool, message.args);
    else if (message.type === 'done') this.#onDone(message);
  }

  #onStdout(text: string): void {
    if (!this.#appendStdout(text)) this.#endStdoutCap();
  }

  /** Appends what fits under the cap; false when `text` did not fit whole. */
  #appendStdout(text: string): boolean {
    const cap = this.#options.limits.stdoutBytes;
    const bytes = Buffer.byteLength(text);
    if (this.#stdoutBytes + bytes <= cap) {
      this.#stdout += text;
      this.#stdoutBytes += bytes;
      return true;
    }
    // The child keeps to the cap itself; a child that does not is cut here, on a character boundary.
    const head = new Uint8Array(cap - this.#stdoutBytes);
    const { read } = new TextEncoder().encodeInto(text, head);
    this.#stdout += text.slice(0, read);
    this.#stdoutBytes = cap;
    return false;
  }

  #endStdoutCap(): void {
    const cap = this.#options.limits.stdoutBytes;
    void this.#end({
      exitCode: SCRIPT_EXIT_CODES.stdoutCap,
      failureClass: 'stdout_cap',
      error: `the script wrote more than ${cap} bytes to stdout`,
    });
  }

  async #onToolCall(id: number, tool: string, argsJson: string): Promise<void> {
    const answer = (reply: { ok: true; json: string } | { ok: false; message: string }) => {
      if (!this.#ended) this.#child.send({ type: 'tool_result', id, ...reply });
    };
    const { maxToolCalls } = this.#options.limits;
    // The child refuses these itself; a child that does not is refused here, before callTool.
    if (this.#toolCalls >= maxToolCalls) {
      answer({ ok: false, message: `tools.${tool}: the run may call tools at most ${maxToolCalls} times` });
      return;
    }
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      answer({ ok: false, message: `tools.${tool}: the arguments are not JSON` });
      return;
    }
    this.#toolCalls += 1;
    this.#firstToolCallMs ??= this.#elapsed();
    let value: unknown;
    try {
      value = await this.#options.callTool(tool, args, { signal: this.#callsAbort.signal });
    } catch (error) {
      answer({ ok: false, message: boundText(describe(error)) });
      return;
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      answer({ ok: false, message: boundText(`tools.${tool}: the result is not JSON (${describe(error)})`) });
      return;
    }
    json ??= 'null';
    if (json.length > SCRIPT_TOOL_RESULT_MAX_CHARS) {
      answer({
        ok: false,
        message: `tools.${tool}: the result is ${json.length} characters of JSON, more than ${SCRIPT_TOOL_RESULT_MAX_CHARS}`,
      });
      return;
    }
    answer({ ok: true, json });
  }

  #onDone(message: Extract<ChildMessage, { type: 'done' }>): void {
    const { limits } = this.#options;
    switch (message.ending) {
      case 'returned': {
        let result: unknown;
        try {
          result = message.result === undefined ? undefined : JSON.parse(message.result);
        } catch {
          void this.#end({
            exitCode: SCRIPT_EXIT_CODES.childFailed,
            failureClass: 'nonzero_exit',
            error: 'the script child sent a result that is not JSON',
          });
          return;
        }
        void this.#end({ exitCode: SCRIPT_EXIT_CODES.returned, ...(result === undefined ? {} : { result }) });
        return;
      }
      case 'threw':
        void this.#end({
          exitCode: SCRIPT_EXIT_CODES.threw,
          failureClass: 'nonzero_exit',
          error: message.error ?? 'the script failed',
        });
        return;
      case 'timeout':
        void this.#end({
          exitCode: SCRIPT_EXIT_CODES.timeout,
          failureClass: 'timeout',
          error: `the script ran longer than ${limits.timeoutMs} ms`,
        });
        return;
      case 'stdout_cap':
        this.#endStdoutCap();
        return;
    }
  }

  async #end(ending: Ending): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    this.#callsAbort.abort(new Error('the script run ended'));
    // One run per child: whatever the ending, the child dies before the result is returned.
    await this.#child.kill();
    const resolve = this.#resolve;
    this.#resolve = undefined;
    resolve?.({
      ...ending,
      stdout: this.#stdout,
      durationMs: this.#elapsed(),
      toolCalls: this.#toolCalls,
      ...(this.#firstToolCallMs === undefined ? {} : { firstToolCallMs: this.#firstToolCallMs }),
      ...(this.#child.pid === undefined ? {} : { pid: this.#child.pid }),
    });
  }
}
