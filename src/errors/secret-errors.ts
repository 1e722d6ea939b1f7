// Errors of the secrets.* methods: a name secrets.yaml does not hold, and secrets kept in the database.
import { GatewayError, notFound } from './gateway-error.js';

export const secretNotFound = (name: string) => notFound(`Secret not found: ${name}`, { param: 'name' });

/** Under storage: postgres the config's secrets live with its revisions in the database, not in secrets.yaml. */
export const secretsNotInFile = () =>
  new GatewayError(
    'conflict',
    'Secrets are kept in the database under storage: postgres; change them with config.set on the referring key',
  );
