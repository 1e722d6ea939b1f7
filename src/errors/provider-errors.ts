// Errors of the providers.* administration methods: a provider still in use cannot be deleted.
import { GatewayError } from './gateway-error.js';

/** Deleting a provider that agents (or the embeddings) still name; the message lists them so they can be moved first. */
export const providerInUse = (provider: string, users: readonly string[]) =>
  new GatewayError(
    'conflict',
    `Provider '${provider}' is still used by ${users.join(', ')}; move them to another provider first`,
    { param: 'name', usedBy: [...users] },
  );
