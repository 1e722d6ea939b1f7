// terminal.* methods (admin): operators list every drive, watch one's newest output without moving the agent's
// read cursor, and close one (reason operator).
import { z } from 'zod';
import { defineMethod } from '../rpc/index.js';
import { sessionKeyStringSchema } from '../sessions/index.js';
import type { Drives } from './drives.js';
import { driveIdSchema, maxCharsSchema, outputResult } from './tools.js';

export interface TerminalMethodsDeps {
  drives: Drives;
  now: () => number;
}

export function terminalMethods({ drives, now }: TerminalMethodsDeps) {
  return [
    defineMethod({
      name: 'terminal.list',
      scope: 'admin',
      summary:
        'Open terminal drives, oldest first, optionally of one agent or session: { drives: [{ driveId, agentId, sessionKey, ' +
        'ownerId, state, cwd, openedAt, ageMs, lastInteractionAt, lastOutputAt, interactions, exitCode? }] }.',
      params: z.strictObject({
        agentId: z.string().min(1).max(128).optional(),
        sessionKey: sessionKeyStringSchema.optional(),
      }),
      handler: ({ agentId, sessionKey }) => {
        const at = now();
        return {
          drives: drives
            .list()
            .filter((drive) => agentId === undefined || drive.agentId === agentId)
            .filter((drive) => sessionKey === undefined || drive.sessionKey === sessionKey)
            .sort((a, b) => a.openedAt - b.openedAt)
            .map((drive) => ({ ...drive, ageMs: Math.max(0, at - drive.openedAt) })),
        };
      },
    }),
    defineMethod({
      name: 'terminal.read',
      scope: 'admin',
      summary:
        "A drive's newest output (up to maxChars, ANSI stripped) without consuming the agent's cursor: " +
        '{ driveId, output, truncated, dropped, state, exitCode? }.',
      params: z.strictObject({ driveId: driveIdSchema, maxChars: maxCharsSchema.optional() }),
      handler: ({ driveId, maxChars }) => ({ driveId, ...outputResult(drives.peek(driveId, maxChars)) }),
    }),
    defineMethod({
      name: 'terminal.close',
      scope: 'admin',
      summary:
        "Ends a drive (its shell's whole process group is killed; recorded with reason operator): { driveId, closed: true }.",
      params: z.strictObject({ driveId: driveIdSchema }),
      handler: async ({ driveId }) => {
        await drives.close(driveId, 'operator');
        return { driveId, closed: true as const };
      },
    }),
  ];
}
