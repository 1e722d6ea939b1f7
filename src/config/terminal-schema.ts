// The terminal config section: agents' terminal drives (src/terminal) — the shell, its bubblewrap jail and the reaper's caps.
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** Terminal drives: a real pseudo-terminal per drive running `shell`, jailed unless `sandbox: none` is chosen. */
export const terminalConfigSchema = z
  .strictObject({
    /** Off by default: no drive opens, and the terminal_* tools fail with a clear error, until this is true. */
    enabled: z.boolean().default(false),
    /** bwrap: the shell runs in a bubblewrap jail (refused when bwrap is missing); none: unjailed, a warning at start. */
    sandbox: z.enum(['bwrap', 'none']).default('bwrap'),
    /** The shell a drive runs (an absolute path; inside the jail, the system's own). */
    shell: z.string().startsWith('/', 'must be an absolute path').default('/bin/bash'),
    /** The root of the agents' workspaces: a drive of agent A may write `<workspace>/A` only. Default `<dataDir>/workspace`. */
    workspace: z.string().min(1).optional(),
    /** Whether jailed shells reach the network (off: a private network namespace with nothing in it). */
    network: z.boolean().default(false),
    /** Environment variables a shell gets, beside PATH, HOME, TERM and LANG; nothing else of the gateway's leaks in. */
    env: z.record(envName, z.string().max(4_096)).default({}),
    /** Names of the gateway's own environment variables passed through as they are (an explicit allow-list). */
    passEnv: z.array(envName).max(100).default([]),
    /** A drive the agent has not sent to nor read from for this long is ended (reason idle). */
    idleMs: durationMs(1).default(600_000),
    /** A drive older than this is ended whatever it does (reason wall_clock). */
    wallClockMs: durationMs(1).default(3_600_000),
    /** Drives one agent may have open; opening one more ends that agent's least recently used (reason max_sessions). */
    maxSessionsPerAgent: positiveInt.max(1_000).default(4),
    /** Drives open on this gateway; opening one more ends the least recently used (reason max_sessions). */
    maxSessions: positiveInt.max(10_000).default(32),
    /** terminal_send calls one drive takes; the call past it ends the drive (reason max_interactions). */
    maxInteractions: positiveInt.max(1_000_000).default(1_000),
    /** Characters of output a drive keeps for reading; older output is dropped with a marker. */
    outputBufferChars: positiveInt
      .min(1_024)
      .max(16 * 1_048_576)
      .default(262_144),
    /** Characters one terminal_send may carry. */
    maxSendChars: positiveInt.max(1_048_576).default(16_384),
    /** Characters one terminal_read returns at most (a call may ask for fewer). */
    maxReadChars: positiveInt.max(1_048_576).default(16_000),
    /** The longest terminal_read `waitMs` a call may ask for; a larger one is cut to it. */
    maxWaitMs: durationMs(0).default(30_000),
  })
  .refine((config) => config.maxSessionsPerAgent <= config.maxSessions, {
    path: ['maxSessionsPerAgent'],
    message: 'must be at most maxSessions',
  });

export type TerminalConfig = z.infer<typeof terminalConfigSchema>;
