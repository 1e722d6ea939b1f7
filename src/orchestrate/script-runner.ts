// The shape of the sandbox's runScript as this folder uses it (src/orchestrate/sandbox implements it), so the service
// gets it passed in.

export interface ScriptRunRequest {
  script: string;
  limits: { timeoutMs: number; memoryBytes: number; stdoutBytes: number; maxToolCalls: number };
  callTool: (tool: string, args: unknown) => Promise<unknown>;
  signal?: AbortSignal;
}

export interface ScriptRunOutcome {
  exitCode: number;
  result?: unknown;
  stdout: string;
  failureClass?: 'timeout' | 'stdout_cap' | 'nonzero_exit' | 'spawn_fail';
  error?: string;
  durationMs: number;
  toolCalls: number;
}

/** Runs one script in a fresh child process; never rejects. */
export type ScriptRunner = (request: ScriptRunRequest) => Promise<ScriptRunOutcome>;
