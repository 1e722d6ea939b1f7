// secrets.* methods (admin): the names in secrets.yaml, and setting or deleting one value; values are never answered.
import { z } from 'zod';
import type { ConfigStore } from '../config/index.js';
import { defineMethod, noParams } from '../rpc/index.js';

/** The names `${secret:NAME}` may use (config/reference-fields.ts). */
const secretName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+$/, 'secret names use letters, digits, dot, underscore or hyphen');

/** A secret value: one line of at most 64 KiB (an API key, a token, a password). */
const secretValue = z
  .string()
  .min(1)
  .max(65_536)
  .refine((value) => !/[\r\n\0]/.test(value), 'must be one line without NUL');

export function secretMethods({ config }: { config: ConfigStore }) {
  return [
    defineMethod({
      name: 'secrets.list',
      scope: 'admin',
      summary: 'The names of the secrets config.yaml may refer to as ${secret:NAME}; values are never shown.',
      params: noParams,
      handler: () => ({ names: config.secretNames() }),
    }),
    defineMethod({
      name: 'secrets.set',
      scope: 'admin',
      summary: 'Sets one secret value in secrets.yaml (0600); a config referring to it applies the new value at once.',
      params: z.strictObject({ name: secretName, value: secretValue }),
      handler: async ({ name, value }) => ({ name, sections: (await config.setSecret(name, value)).sections }),
    }),
    defineMethod({
      name: 'secrets.delete',
      scope: 'admin',
      summary: 'Deletes one secret value; refused while a config key that needs it refers to it.',
      params: z.strictObject({ name: secretName }),
      handler: async ({ name }) => ({ name, sections: (await config.deleteSecret(name)).sections }),
    }),
  ];
}
