// Errors of terminal drives (src/terminal): the capability off, the jail missing, unknown drives, oversized input, cwd escapes.
import { GatewayError, invalidParams, notFound } from './gateway-error.js';

/** terminal.enabled is false: no drive opens and the terminal_* tools refuse. */
export const terminalDisabled = () =>
  new GatewayError('unavailable', 'Terminal drives are turned off on this gateway (terminal.enabled: false)');

/** sandbox: bwrap and bubblewrap cannot be run: the drive is refused, never run unjailed. */
export const terminalSandboxUnavailable = (bwrapPath: string) =>
  new GatewayError(
    'unavailable',
    `The terminal sandbox is unavailable: bubblewrap ('${bwrapPath}') is missing or does not run, and a drive never runs unsandboxed; install bubblewrap (or set terminal.sandbox: none explicitly)`,
  );

/** An unknown or ended drive, or one another session owns (never told apart, so other sessions' drives stay unseen). */
export const terminalDriveNotFound = (driveId: string, param = 'driveId') =>
  notFound(`Terminal drive ${driveId} not found`, { param });

/** terminal_send text over terminal.maxSendChars. */
export const terminalSendTooLong = (chars: number, maxSendChars: number) =>
  new GatewayError(
    'invalid_params',
    `The text is ${chars} characters, over the ${maxSendChars} one send may carry (terminal.maxSendChars); send it in parts`,
    { param: 'text', maxSendChars },
  );

/** A cwd that is absolute, climbs out with `..`, or resolves (through a symlink) outside the agent's workspace. */
export const terminalCwdOutsideWorkspace = (cwd: string) =>
  invalidParams(`The cwd '${cwd}' is outside the agent's workspace: give a directory relative to it`, 'cwd');

/** A cwd inside the workspace that is not an existing directory. */
export const terminalCwdMissing = (cwd: string) =>
  invalidParams(`The cwd '${cwd}' is not a directory in the agent's workspace`, 'cwd');

/** The send past terminal.maxInteractions: the drive was ended (reason max_interactions). */
export const terminalInteractionsExhausted = (driveId: string, maxInteractions: number) =>
  new GatewayError(
    'conflict',
    `Terminal drive ${driveId} took its ${maxInteractions} sends (terminal.maxInteractions) and was closed; open a new one`,
    { maxInteractions },
  );

/** A send to a drive whose shell has exited: its last output stays readable until it is closed. */
export const terminalDriveExited = (driveId: string, exitCode: number | undefined) =>
  new GatewayError(
    'conflict',
    `The shell of terminal drive ${driveId} has exited${exitCode === undefined ? '' : ` (code ${exitCode})`}; read its last output, then close it`,
  );

/** An agent id that cannot name a workspace directory ('.', '..', a slash). */
export const terminalWorkspaceNameInvalid = (agentId: string) =>
  invalidParams(`Agent id '${agentId}' cannot name a terminal workspace directory`, 'agentId');
