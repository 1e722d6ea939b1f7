// The agent tools terminal_open, terminal_send, terminal_read and terminal_close: a real shell per drive, owned by the
// session that opened it (another session's drive id answers not found), each call recorded for the drive verdicts.
import { z } from 'zod';
import { defineTool, type ToolContext, type ToolDefinition } from '../agents/index.js';
import type { TerminalConfig } from '../config/index.js';
import { terminalDisabled } from '../errors.js';
import type { Drives } from './drives.js';
import type { TerminalEvidence, TurnRef } from './evidence.js';
import type { DriveOutput } from './types.js';

/** The schema's bounds: the config's own upper limits; the live caps (maxSendChars, maxReadChars, maxWaitMs) apply in the drive table. */
export const DRIVE_ID_MAX_CHARS = 128;
const TEXT_MAX_CHARS = 1_048_576;
const WAIT_MAX_MS = 3_600_000;

export const driveIdSchema = z.string().min(1).max(DRIVE_ID_MAX_CHARS);
export const maxCharsSchema = z.number().int().min(1).max(TEXT_MAX_CHARS);

export interface TerminalToolsDeps {
  drives: Drives;
  config: () => TerminalConfig;
  evidence: TerminalEvidence;
}

const turnOf = (ctx: ToolContext): TurnRef | undefined =>
  ctx.turn === undefined ? undefined : { traceId: ctx.turn.traceId, sessionKey: ctx.sessionKey };

/** What terminal_read answers the model (and terminal.read an operator). */
export const outputResult = (output: DriveOutput) => ({
  output: output.text,
  truncated: output.truncated,
  dropped: output.dropped,
  state: output.state,
  ...(output.exitCode === undefined ? {} : { exitCode: output.exitCode }),
});

export function terminalTools({ drives, config, evidence }: TerminalToolsDeps): ToolDefinition[] {
  /** Checked before each call: a gateway with terminals off answers each tool with the same clear refusal. */
  const assertEnabled = () => {
    if (!config().enabled) throw terminalDisabled();
  };
  /** Before a call on a drive of this session: its end (an eviction the call causes included) is this turn's record. */
  const touch = (driveId: string, ctx: ToolContext) => {
    if (drives.get(driveId)?.sessionKey === ctx.sessionKey) evidence.touch(driveId, turnOf(ctx));
  };
  return [
    defineTool({
      name: 'terminal_open',
      description:
        "Opens a terminal drive: a persistent shell in this agent's sandboxed workspace (cwd: a directory inside it). " +
        'Returns { driveId, cwd }; send input with terminal_send and read output with terminal_read.',
      input: z.strictObject({ cwd: z.string().min(1).max(4_096).optional() }),
      async execute({ cwd }, ctx) {
        assertEnabled();
        const drive = await drives.open({
          agentId: ctx.agentId,
          sessionKey: ctx.sessionKey,
          ownerId: ctx.ownerId,
          ...(cwd === undefined ? {} : { cwd }),
        });
        evidence.touch(drive.driveId, turnOf(ctx));
        evidence.succeeded(drive.driveId, turnOf(ctx), true);
        return { driveId: drive.driveId, cwd: drive.cwd };
      },
    }),
    defineTool({
      name: 'terminal_send',
      description:
        'Types text into a terminal drive exactly as given: no newline is added, so end a command with "\\n" to run it. ' +
        'Answers at once; read the output with terminal_read.',
      input: z.strictObject({ driveId: driveIdSchema, text: z.string().min(1).max(TEXT_MAX_CHARS) }),
      // async: the drive table throws synchronously; the registry wants each failure as a rejected promise.
      async execute({ driveId, text }, ctx) {
        assertEnabled();
        touch(driveId, ctx);
        const drive = drives.send(driveId, text, ctx.sessionKey);
        const turn = turnOf(ctx);
        evidence.input(driveId, text.length, turn);
        evidence.succeeded(driveId, turn);
        return { driveId, state: drive.state, interactions: drive.interactions };
      },
    }),
    defineTool({
      name: 'terminal_read',
      description:
        "A terminal drive's output since the last terminal_read (ANSI escapes stripped). waitMs waits that long for " +
        'output to arrive (returning once it settles); truncated: more is waiting; dropped: older output was lost.',
      input: z.strictObject({
        driveId: driveIdSchema,
        waitMs: z.number().int().min(0).max(WAIT_MAX_MS).optional(),
        maxChars: maxCharsSchema.optional(),
      }),
      async execute({ driveId, waitMs, maxChars }, ctx) {
        assertEnabled();
        touch(driveId, ctx);
        const output = await drives.read(
          driveId,
          { ...(waitMs === undefined ? {} : { waitMs }), ...(maxChars === undefined ? {} : { maxChars }) },
          ctx.sessionKey,
        );
        evidence.succeeded(driveId, turnOf(ctx));
        return outputResult(output);
      },
    }),
    defineTool({
      name: 'terminal_close',
      description: 'Ends a terminal drive: its shell and everything started in it are killed.',
      input: z.strictObject({ driveId: driveIdSchema }),
      async execute({ driveId }, ctx) {
        assertEnabled();
        touch(driveId, ctx);
        const drive = await drives.close(driveId, 'closed', ctx.sessionKey);
        evidence.succeeded(driveId, turnOf(ctx));
        return { driveId, closed: true, ...(drive.exitCode === undefined ? {} : { exitCode: drive.exitCode }) };
      },
    }),
  ];
}
