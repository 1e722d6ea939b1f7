// The line protocol between the gateway and a script child (one JSON object per line on the child's stdin/stdout),
// its size caps, and the exit codes a run reports. Both sides validate what they read with these schemas.
import { z } from 'zod';

/** The script text, in UTF-16 code units (what the gateway sends a child). */
export const SCRIPT_MAX_CHARS = 256 * 1024;
/** A tool's name as the script wrote it. */
export const SCRIPT_TOOL_NAME_MAX_CHARS = 128;
/** One tool call's arguments as JSON text. */
export const SCRIPT_TOOL_ARGS_MAX_CHARS = 1024 * 1024;
/** One tool result as JSON text handed to the script; a larger one is rejected inside the script. */
export const SCRIPT_TOOL_RESULT_MAX_CHARS = 4 * 1024 * 1024;
/** The script's return value as JSON text; a larger one fails the run. */
export const SCRIPT_RESULT_MAX_CHARS = 1024 * 1024;
/** What the script threw, or why it was stopped. */
export const SCRIPT_ERROR_MAX_CHARS = 2000;
/** The stdout cap a caller may ask for; each stdout message carries at most this much. */
export const SCRIPT_STDOUT_MAX_BYTES = 4 * 1024 * 1024;
/** One line from the child: its largest message plus JSON escaping (at most 6 characters per character) and framing. */
export const CHILD_LINE_MAX_CHARS =
  6 * Math.max(SCRIPT_TOOL_ARGS_MAX_CHARS, SCRIPT_RESULT_MAX_CHARS, SCRIPT_STDOUT_MAX_BYTES) + 4096;

/** The exitCode of a run. */
export const SCRIPT_EXIT_CODES = {
  /** The script returned (its promise fulfilled). */
  returned: 0,
  /** The script threw, rejected, ran out of memory or stack, never settled, or returned more than the result cap. */
  threw: 1,
  /** The child broke the protocol (garbage or oversized line) or died on its own. */
  childFailed: 70,
  /** The script ran past limits.timeoutMs. */
  timeout: 124,
  /** console.log wrote more than limits.stdoutBytes. */
  stdoutCap: 125,
  /** The child could not start (or did not report ready in time). */
  spawnFailed: 126,
  /** The caller's signal aborted the run. */
  aborted: 137,
} as const;

export const limitsSchema = z.strictObject({
  timeoutMs: z.number().int().positive(),
  memoryBytes: z.number().int().positive(),
  stdoutBytes: z.number().int().nonnegative().max(SCRIPT_STDOUT_MAX_BYTES),
  maxToolCalls: z.number().int().nonnegative(),
});

/** Gateway → child. */
export const parentMessageSchema = z.union([
  z.strictObject({ type: z.literal('run'), script: z.string().max(SCRIPT_MAX_CHARS), limits: limitsSchema }),
  z.strictObject({
    type: z.literal('tool_result'),
    id: z.number().int().nonnegative(),
    ok: z.literal(true),
    json: z.string().max(SCRIPT_TOOL_RESULT_MAX_CHARS),
  }),
  z.strictObject({
    type: z.literal('tool_result'),
    id: z.number().int().nonnegative(),
    ok: z.literal(false),
    message: z.string().max(SCRIPT_ERROR_MAX_CHARS),
  }),
]);
export type ParentMessage = z.infer<typeof parentMessageSchema>;
export type RunMessage = Extract<ParentMessage, { type: 'run' }>;

/** How the child ended the script, when it did (the gateway kills it in every other case). */
export const childEndingSchema = z.enum(['returned', 'threw', 'timeout', 'stdout_cap']);

/** Child → gateway. */
export const childMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({
    type: z.literal('tool_call'),
    id: z.number().int().nonnegative(),
    tool: z.string().min(1).max(SCRIPT_TOOL_NAME_MAX_CHARS),
    args: z.string().max(SCRIPT_TOOL_ARGS_MAX_CHARS),
  }),
  z.strictObject({ type: z.literal('stdout'), text: z.string().max(SCRIPT_STDOUT_MAX_BYTES) }),
  z.strictObject({
    type: z.literal('done'),
    ending: childEndingSchema,
    result: z.string().max(SCRIPT_RESULT_MAX_CHARS).optional(),
    error: z.string().max(SCRIPT_ERROR_MAX_CHARS).optional(),
  }),
]);
export type ChildMessage = z.infer<typeof childMessageSchema>;

/** Cuts a message to `max` characters, marking the cut. */
export function boundText(text: string, max = SCRIPT_ERROR_MAX_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
