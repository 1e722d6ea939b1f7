// The sandbox's public shapes: what a caller passes to runScript and what one run of an orchestrate script returns.

export type ScriptFailureClass = 'timeout' | 'stdout_cap' | 'nonzero_exit' | 'spawn_fail';

export interface ScriptLimits {
  /** Wall time of the script from the moment the child received it, in ms; the child is killed at the deadline → 'timeout'. */
  timeoutMs: number;
  /** QuickJS runtime memory limit in bytes; past it the script fails (out of memory) → 'nonzero_exit'. */
  memoryBytes: number;
  /** console.log output cap in UTF-8 bytes; exceeding it stops the run → 'stdout_cap'. */
  stdoutBytes: number;
  /** tools.* calls past it are rejected inside the script (an Error the script may catch). */
  maxToolCalls: number;
}

export interface ScriptToolCallContext {
  /** Aborted when the run ends (timeout, abort, cap, the script finished) while this call is still pending. */
  signal: AbortSignal;
}

export interface ScriptRunOptions {
  script: string;
  limits: ScriptLimits;
  /**
   * Called in the gateway process for each `await tools.<name>(args)` of the script, in call order. Whatever it
   * resolves (JSON-serialisable) is what the script's await returns; a rejection is thrown inside the script as an
   * Error carrying the message only. The gateway decides every call here (allow/deny/approval) — the child has no
   * other way out. `tool` is any string of at most SCRIPT_TOOL_NAME_MAX_CHARS the script wrote (even `__proto__`):
   * look it up as an own key only. `args` is `{}` when the script passed none.
   */
  callTool: (tool: string, args: unknown, context: ScriptToolCallContext) => Promise<unknown>;
  /** Aborting kills the child at once; the result then has failureClass 'nonzero_exit' and error naming the abort reason. */
  signal?: AbortSignal;
  /**
   * The node executable the child runs on (default: the gateway's own, process.execPath). A run given one starts its
   * own child instead of taking a pre-started one; tests point it at a missing file to see 'spawn_fail'.
   */
  nodePath?: string;
}

export interface ScriptRunResult {
  /** 0: the script returned; otherwise one of SCRIPT_EXIT_CODES. */
  exitCode: number;
  /** The returned value, JSON round-tripped; absent when not JSON-serialisable or failed. */
  result?: unknown;
  /** console.log lines, capped at stdoutBytes. */
  stdout: string;
  failureClass?: ScriptFailureClass;
  /** What the script threw, or why it was stopped (at most SCRIPT_ERROR_MAX_CHARS). */
  error?: string;
  durationMs: number;
  /** tools.* calls the script made (each one that reached callTool). */
  toolCalls: number;
  /** ms from start to the first tools.* call reaching callTool. */
  firstToolCallMs?: number;
  /** The child's process id (absent when it never started); the child has exited by the time the result is returned. */
  pid?: number;
}
