// Helpers for the orchestrate sandbox tests: run a script with small default limits and a recording callTool, and check
// that a run's child process is gone.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import {
  runScript,
  type ScriptLimits,
  type ScriptRunOptions,
  type ScriptRunResult,
} from '../../src/orchestrate/sandbox/index.js';

export const TEST_LIMITS: ScriptLimits = {
  timeoutMs: 5_000,
  memoryBytes: 32 * 1024 * 1024,
  stdoutBytes: 4096,
  maxToolCalls: 20,
};

export interface ToolCallRecord {
  tool: string;
  args: unknown;
}

export interface RecordedRun extends ScriptRunResult {
  calls: ToolCallRecord[];
}

/**
 * Runs `script`; tool calls are recorded and answered by `tools[name](args)` (an unknown tool rejects with
 * "unknown tool <name>"), looked up as own keys only.
 */
export async function runRecorded(
  script: string,
  tools: Record<string, (args: unknown) => unknown> = {},
  options: Partial<Omit<ScriptRunOptions, 'script' | 'callTool' | 'limits'>> & { limits?: Partial<ScriptLimits> } = {},
): Promise<RecordedRun> {
  const calls: ToolCallRecord[] = [];
  const result = await runScript({
    ...options,
    script,
    limits: { ...TEST_LIMITS, ...options.limits },
    callTool: async (tool, args) => {
      calls.push({ tool, args });
      const handler = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
      if (handler === undefined) throw new Error(`unknown tool ${tool}`);
      return handler(args);
    },
  });
  return { ...result, calls };
}

/** Whether a process with this id exists (signal 0 checks without sending anything). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EPERM') return true;
    return false;
  }
}

/** Whether a process with this id runs: it exists and is not a zombie waiting for a parent to reap it. */
export function processRunning(pid: number): boolean {
  if (!processExists(pid)) return false;
  try {
    // The state follows the command name, which is in parentheses and may itself contain spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The run had a child, and that child has exited by the time the result came back. */
export function expectChildGone(result: ScriptRunResult): void {
  expect(result.pid).toEqual(expect.any(Number));
  expect(processExists(result.pid ?? 0)).toBe(false);
}
