// One script child process seen from the gateway: started with an empty environment, its stdout read as capped JSON
// lines validated with zod, and a registry so every child can be killed at once (shutdown, and the gateway's exit).
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { childArguments } from './child-entry.js';
import {
  CHILD_LINE_MAX_CHARS,
  boundText,
  childMessageSchema,
  type ChildMessage,
  type ParentMessage,
} from './protocol.js';

/** How long a killed child's pipes may take to close, so the lines it wrote before dying are still read. */
const STDIO_DRAIN_MS = 1000;
/**
 * The end of the child's stderr kept to explain an exit (node's own errors, never the script's output): enough for a
 * crash report's error line above its stack, whatever the length of the source line quoted before it.
 */
const STDERR_KEEP_CHARS = 6000;

const children = new Set<ScriptChildProcess>();
let exitHookInstalled = false;

/** SIGKILLs every script child, running or pre-started. Synchronous, so it also works inside process.on('exit'). */
export function killAllScriptChildren(): void {
  for (const child of children) child.killNow();
}

export class ScriptChildProcess {
  readonly #process: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #closed: Promise<void>;
  /** Resolves once the child said `ready`; rejects when it could not start or ended first. */
  readonly ready: Promise<void>;
  #onReady: (() => void) | undefined;
  #onNotReady: ((error: Error) => void) | undefined;
  #listener: ((message: ChildMessage) => void) | undefined;
  #onEnd: ((reason: string) => void) | undefined;
  #endReason: string | undefined;
  #buffer = '';
  #stderr = '';
  #alive = true;

  constructor(nodePath: string) {
    this.ready = new Promise((resolve, reject) => {
      this.#onReady = resolve;
      this.#onNotReady = reject;
    });
    // Unhandled until a run awaits it; a pre-started child may fail before any run takes it.
    this.ready.catch(() => undefined);
    const args = childArguments();
    this.#process = spawn(nodePath, args, { cwd: '/', env: {}, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    children.add(this);
    installExitHook();
    this.#exited = new Promise((resolve) => {
      this.#process.once('exit', () => {
        this.#alive = false;
        children.delete(this);
        resolve();
      });
    });
    // 'close' comes after the child's stdout is drained: its last lines (the run's `done`) are read before this.
    this.#closed = new Promise((resolve) => {
      this.#process.once('close', (code, signal) => {
        this.#end(`the script child exited (${signal ?? `code ${String(code)}`})${this.#stderrLine()}`);
        resolve();
      });
    });
    this.#process.once('error', (error) => {
      // A spawn failure (ENOENT, EACCES) never emits 'exit'.
      if (this.#process.pid === undefined) {
        this.#alive = false;
        children.delete(this);
        this.#end(`the script child could not start: ${error.message}`);
      }
    });
    this.#process.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.#read(chunk));
    this.#process.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEEP_CHARS);
    });
    // Writing to a child that died raises EPIPE on stdin; its exit is reported through 'exit'.
    this.#process.stdin?.on('error', () => undefined);
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  get alive(): boolean {
    return this.#alive && this.#endReason === undefined;
  }

  /** Receives the child's messages after `ready`, and why it ended (exit, spawn error, protocol violation). */
  attach(listener: (message: ChildMessage) => void, onEnd: (reason: string) => void): void {
    this.#listener = listener;
    this.#onEnd = onEnd;
    if (this.#endReason !== undefined) onEnd(this.#endReason);
  }

  send(message: ParentMessage): void {
    if (this.#alive) this.#process.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** Whether this child keeps the gateway's event loop alive: a pre-started one must not, a running one does. */
  setRef(ref: boolean): void {
    const handles = [this.#process.stdin, this.#process.stdout, this.#process.stderr];
    if (ref) this.#process.ref();
    else this.#process.unref();
    for (const handle of handles) {
      if (handle instanceof Socket) {
        if (ref) handle.ref();
        else handle.unref();
      }
    }
  }

  killNow(): void {
    if (this.#alive) this.#process.kill('SIGKILL');
  }

  /**
   * SIGKILLs the child and resolves once it has exited (at once when it never started) and what it wrote before has
   * been read, or STDIO_DRAIN_MS have passed.
   */
  async kill(): Promise<void> {
    if (this.#process.pid === undefined) return;
    this.killNow();
    await this.#exited;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#closed,
        new Promise((resolve) => {
          timer = setTimeout(resolve, STDIO_DRAIN_MS);
          timer.unref();
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  #read(chunk: string): void {
    if (this.#endReason !== undefined) return;
    // Only the new chunk is searched: a long line arriving in many chunks costs its length once, not once per chunk.
    let start = 0;
    let newline = chunk.indexOf('\n');
    while (newline !== -1) {
      const line = this.#buffer + chunk.slice(start, newline);
      this.#buffer = '';
      this.#line(line);
      if (this.#endReason !== undefined) return;
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    this.#buffer += chunk.slice(start);
    if (this.#buffer.length > CHILD_LINE_MAX_CHARS)
      this.#violate(`a message longer than ${CHILD_LINE_MAX_CHARS} characters`);
  }

  #line(line: string): void {
    if (line.length > CHILD_LINE_MAX_CHARS) {
      this.#violate(`a message longer than ${CHILD_LINE_MAX_CHARS} characters`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.#violate('a line that is not JSON');
      return;
    }
    const parsed = childMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.#violate('a message outside the protocol');
      return;
    }
    if (parsed.data.type === 'ready') {
      if (this.#onReady === undefined) this.#violate('a second ready');
      this.#onReady?.();
      this.#onReady = undefined;
      this.#onNotReady = undefined;
      return;
    }
    if (this.#listener === undefined) this.#violate('a message before it was given a script');
    else this.#listener(parsed.data);
  }

  #violate(what: string): void {
    this.killNow();
    this.#end(`the script child broke the protocol: it sent ${what}`);
  }

  #end(reason: string): void {
    if (this.#endReason !== undefined) return;
    this.#endReason = reason;
    this.#buffer = '';
    this.#onNotReady?.(new Error(reason));
    this.#onReady = undefined;
    this.#onNotReady = undefined;
    this.#onEnd?.(reason);
  }

  /** The line of the child's stderr that says what went wrong: node ends a crash report with its version line. */
  #stderrLine(): string {
    const lines = this.#stderr
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^Node\.js v\d/.test(line));
    const line = lines.findLast((each) => /^\w*Error\b/.test(each)) ?? lines.at(-1) ?? '';
    return line === '' ? '' : `: ${boundText(line, 300)}`;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAllScriptChildren);
}
