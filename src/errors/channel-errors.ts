// Errors of chat-platform channel connections (src/channels): an unknown connection id, and one that is not connected.
import { GatewayError, notFound } from './gateway-error.js';

/** An id that is not under `channels`. */
export const channelNotFound = (id: string) =>
  notFound(`No channel connection named ${id} in channels`, { param: 'id' });

/** A configured connection that is disabled, or whose adapter is not running: nothing can be sent through it. */
export const channelUnavailable = (id: string, why: string) =>
  new GatewayError('unavailable', `Channel connection ${id} is unavailable: ${why}`, { channelId: id });
