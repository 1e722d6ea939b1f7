// Errors of learning: learned procedures, feedback on a session's turn, and a reflect pass asked for.
import { GatewayError, notFound } from './gateway-error.js';

export const procedureNotFound = (id: string) => notFound(`Learned procedure not found: ${id}`, { param: 'id' });

/** session.feedback on a session that has no finished turn learning recorded. */
export const noFinishedTurn = (sessionKey: string) =>
  notFound(`Session ${sessionKey} has no finished turn to give feedback on`, { param: 'sessionKey' });

/** skills.reflect with learning off, or before the reflect stage is wired. */
export const reflectUnavailable = (why: string) => new GatewayError('unavailable', `Reflect cannot run: ${why}`);
