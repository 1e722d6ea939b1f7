// The orchestrate sandbox: runs one script per child process in QuickJS, with no file system, network, process or
// environment access; tool calls leave only through the caller's callTool.
export { prewarmScriptChildren, killAllScriptRuns } from './child-pool.js';
export {
  SCRIPT_EXIT_CODES,
  SCRIPT_MAX_CHARS,
  SCRIPT_STDOUT_MAX_BYTES,
  SCRIPT_TOOL_NAME_MAX_CHARS,
} from './protocol.js';
export { runScript } from './run-script.js';
export type {
  ScriptFailureClass,
  ScriptLimits,
  ScriptRunOptions,
  ScriptRunResult,
  ScriptToolCallContext,
} from './types.js';
