// Runs one orchestrate script in a fresh QuickJS runtime inside the script child: memory, stack and deadline limits,
// the tools/console bridge (strings only cross it), and the loop that drives the script's promise to its end.
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten';
import {
  SCRIPT_RESULT_MAX_CHARS,
  SCRIPT_TOOL_ARGS_MAX_CHARS,
  SCRIPT_TOOL_NAME_MAX_CHARS,
  boundText,
  type RunMessage,
} from './protocol.js';
import { SCRIPT_PRELUDE } from './script-prelude.js';

/** QuickJS's own stack limit (about 1,500 plain frames): deep recursion throws a catchable InternalError before the wasm
 * frames exhaust node's native stack (~1 MB), which would kill the run. */
const SCRIPT_STACK_BYTES = 256 * 1024;
/** Memory added to the limit to describe the error that ended a script (which may be the limit itself). */
const DESCRIBE_HEADROOM_BYTES = 1024 * 1024;
/** How often the interrupt handler asks whether the gateway (our parent) is gone, in ms. */
const PARENT_CHECK_INTERVAL_MS = 100;

export type ToolAnswer = { ok: true; json: string } | { ok: false; message: string };

export interface EngineIo {
  /** Sends one tool call to the gateway and resolves with its answer. */
  callTool(tool: string, argsJson: string): Promise<ToolAnswer>;
  /** Sends stdout text (already within the cap). */
  writeStdout(text: string): void;
}

export interface EngineOutcome {
  ending: 'returned' | 'threw' | 'timeout' | 'stdout_cap';
  /** The returned value's JSON text, when it has one. */
  result?: string;
  error?: string;
}

export interface PreparedEngine {
  /** Runs the one script this engine was prepared for; the limits and the deadline start here. */
  run(message: RunMessage): Promise<EngineOutcome>;
}

/** Evaluates a trivial script in a throwaway runtime, so the wasm code a run needs is compiled before a run arrives. */
function warmUp(module: QuickJSWASMModule): void {
  const runtime = module.newRuntime();
  const context = runtime.newContext();
  const result = context.evalCode(`(${SCRIPT_PRELUDE}); (async () => [1].map((x) => x + 1))()`);
  if (result.error === undefined) result.value.dispose();
  else result.error.dispose();
  runtime.executePendingJobs();
}

/**
 * Creates the runtime and context a script will run in, with `tools` and `console` installed, before the script
 * arrives: a pre-started child does this while idle, so a run starts with evaluating the script. Throws when the
 * prelude cannot be installed.
 */
export function prepareEngine(module: QuickJSWASMModule, io: EngineIo): PreparedEngine {
  warmUp(module);
  const runtime = module.newRuntime();
  runtime.setMaxStackSize(SCRIPT_STACK_BYTES);
  // The runtime is never disposed: the child exits after its one run, and disposing with handles a script still
  // holds would trip QuickJS's leak assertion.
  const context = runtime.newContext();
  // Set by run(); no script exists to call the host functions before then.
  let limits: RunMessage['limits'] = { timeoutMs: 0, memoryBytes: 0, stdoutBytes: 0, maxToolCalls: 0 };
  let stop: 'timeout' | 'stdout_cap' | undefined;
  let stdoutBytes = 0;
  let callsStarted = 0;
  let inFlight = 0;
  let wake: (() => void) | undefined;
  const encoder = new TextEncoder();

  const hostLog = context.newFunction('log', (lineHandle) => {
    if (stop !== undefined) return;
    const line = `${context.getString(lineHandle)}\n`;
    const room = limits.stdoutBytes - stdoutBytes;
    // A character is at least one byte: a line longer than the room in characters cannot fit, whatever its encoding.
    const bytes = line.length <= room ? Buffer.byteLength(line) : Infinity;
    if (bytes <= room) {
      stdoutBytes += bytes;
      io.writeStdout(line);
      return;
    }
    // Only whole characters fit: encodeInto stops before one that would cross the cap.
    const head = new Uint8Array(room);
    const { read } = encoder.encodeInto(line, head);
    if (read > 0) io.writeStdout(line.slice(0, read));
    stdoutBytes = limits.stdoutBytes;
    stop = 'stdout_cap';
  });

  const hostCall = context.newFunction('call', (nameHandle, argsHandle) => {
    const name = context.getString(nameHandle);
    const args = context.getString(argsHandle);
    const deferred = context.newPromise();
    const refuse = (message: string) => {
      const error = context.newError(message);
      deferred.reject(error);
      error.dispose();
    };
    if (callsStarted >= limits.maxToolCalls) {
      refuse(
        `tools.${boundText(name, SCRIPT_TOOL_NAME_MAX_CHARS)}: the run may call tools at most ${limits.maxToolCalls} times`,
      );
    } else if (name.length === 0 || name.length > SCRIPT_TOOL_NAME_MAX_CHARS) {
      refuse(`a tool name has 1 to ${SCRIPT_TOOL_NAME_MAX_CHARS} characters`);
    } else if (args.length > SCRIPT_TOOL_ARGS_MAX_CHARS) {
      refuse(
        `tools.${name}: the arguments are ${args.length} characters of JSON, more than ${SCRIPT_TOOL_ARGS_MAX_CHARS}`,
      );
    } else {
      callsStarted += 1;
      inFlight += 1;
      void io.callTool(name, args).then((answer) => {
        inFlight -= 1;
        if (!context.alive || stop !== undefined) return;
        if (answer.ok) {
          const text = context.newString(answer.json);
          deferred.resolve(text);
          text.dispose();
        } else {
          refuse(answer.message);
        }
        wake?.();
      });
    }
    return deferred.handle;
  });

  const [serialize, describe] = setUp(context, hostCall, hostLog);
  const describeError = (error: QuickJSHandle): string => {
    // The error may be "out of memory", and describing it needs a little memory; not unlimited, as the error's own
    // getters (script code) run here too.
    runtime.setMemoryLimit(limits.memoryBytes + DESCRIBE_HEADROOM_BYTES);
    const described = context.callFunction(describe, context.undefined, error);
    if (described.error !== undefined) return 'the script failed with an error that could not be read';
    return boundText(context.getString(described.value));
  };

  async function run(message: RunMessage): Promise<EngineOutcome> {
    limits = message.limits;
    const deadline = Date.now() + limits.timeoutMs;
    const parentPid = process.ppid;
    let nextParentCheck = 0;
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setInterruptHandler(() => {
      if (stop !== undefined) return true;
      const now = Date.now();
      if (now > deadline) {
        stop = 'timeout';
        return true;
      }
      // A script in a tight loop keeps this process off its event loop, where it would notice a closed stdin.
      if (now >= nextParentCheck) {
        nextParentCheck = now + PARENT_CHECK_INTERVAL_MS;
        if (process.ppid !== parentPid) process.exit(1);
      }
      return false;
    });

    const evaluated = context.evalCode(`(async () => {\n${message.script}\n})()`, 'script.js');
    if (evaluated.error !== undefined) {
      return stop !== undefined ? { ending: stop } : { ending: 'threw', error: describeError(evaluated.error) };
    }
    const promise = evaluated.value;
    for (;;) {
      const jobs = runtime.executePendingJobs();
      if (stop !== undefined) return { ending: stop };
      if (jobs.error !== undefined) return { ending: 'threw', error: describeError(jobs.error) };
      const state = context.getPromiseState(promise);
      if (state.type === 'rejected') return { ending: 'threw', error: describeError(state.error) };
      if (state.type === 'fulfilled') {
        const outcome = settle(context, serialize, state.value, describeError);
        return stop !== undefined ? { ending: stop } : outcome;
      }
      if (inFlight === 0) {
        return {
          ending: 'threw',
          error: "the script's promise never settled: it awaits something that is not a tool call",
        };
      }
      // Waiting on the gateway runs no script code, so no interrupt comes: the deadline needs a timer of its own.
      let deadlineTimer: NodeJS.Timeout | undefined;
      try {
        await new Promise<void>((resolve) => {
          wake = resolve;
          deadlineTimer = setTimeout(() => {
            stop = 'timeout';
            resolve();
          }, deadline - Date.now());
        });
      } finally {
        clearTimeout(deadlineTimer);
      }
    }
  }
  return { run };
}

function setUp(
  context: QuickJSContext,
  hostCall: QuickJSHandle,
  hostLog: QuickJSHandle,
): [QuickJSHandle, QuickJSHandle] {
  const prelude = context.unwrapResult(context.evalCode(SCRIPT_PRELUDE, 'prelude.js'));
  const installed = context.unwrapResult(context.callFunction(prelude, context.undefined, hostCall, hostLog));
  return [context.getProp(installed, 0), context.getProp(installed, 1)];
}

function settle(
  context: QuickJSContext,
  serialize: QuickJSHandle,
  value: QuickJSHandle,
  describeError: (error: QuickJSHandle) => string,
): EngineOutcome {
  const serialized = context.callFunction(serialize, context.undefined, value);
  // A value JSON cannot hold (a cycle, a BigInt) leaves the result absent, as undefined or a function does.
  if (serialized.error !== undefined) {
    const error = describeError(serialized.error);
    return error.startsWith('InternalError') ? { ending: 'threw', error } : { ending: 'returned' };
  }
  if (context.typeof(serialized.value) !== 'string') return { ending: 'returned' };
  const json = context.getString(serialized.value);
  if (json.length > SCRIPT_RESULT_MAX_CHARS) {
    return {
      ending: 'threw',
      error: `the script returned ${json.length} characters of JSON, more than ${SCRIPT_RESULT_MAX_CHARS}`,
    };
  }
  return { ending: 'returned', result: json };
}
