// `agent-gateway token create|list|revoke|rotate`: manages API tokens directly in the configured store.
import { openStore } from '../app-store.js';
import { loadConfigFile, scopeSchema, type GatewayPaths, type Scope } from '../config/index.js';
import { isGatewayError } from '../errors.js';
import { createLogger } from '../obs/index.js';
import { createTokenService } from '../server/index.js';
import { CliError, type CliIo } from './output.js';

export interface TokenCommandOptions {
  paths: GatewayPaths;
  action: string | undefined;
  id: string | undefined;
  scopes: string | undefined;
}

function parseScopes(text: string | undefined): Scope[] {
  if (text === undefined || text.trim() === '') return ['rpc'];
  return text.split(',').map((raw) => {
    const parsed = scopeSchema.safeParse(raw.trim());
    if (!parsed.success) throw new CliError(`unknown scope '${raw.trim()}' (use ${scopeSchema.options.join(', ')})`, 2);
    return parsed.data;
  });
}

export async function tokenCommand(options: TokenCommandOptions, io: CliIo): Promise<void> {
  const { config } = await loadConfigFile(options.paths.configPath, io.env, options.paths.secretsPath);
  // The store the gateway opens (the data dir's SQLite file, or the shared PostgreSQL), so its replicas see the change.
  const store = await openStore({ config, paths: options.paths, log: createLogger({ level: 'silent' }) });
  try {
    const tokens = createTokenService({
      store: store.tokens,
      configTokens: config.gateway.tokens,
      now: Date.now,
      configLoadedAt: new Date().toISOString(),
    });
    const requireId = () => {
      if (options.id === undefined)
        throw new CliError(`token ${options.action ?? ''} needs an id: --id NAME or a positional NAME`, 2);
      return options.id;
    };
    switch (options.action) {
      case 'create': {
        const issued = await tokens.create(requireId(), parseScopes(options.scopes));
        io.out(
          `Created token '${issued.id}' with scopes [${issued.scopes.join(', ')}]. The secret is shown only this once:`,
        );
        io.out(issued.secret);
        return;
      }
      case 'list':
        for (const token of await tokens.list()) {
          io.out(
            `${token.id}\t${token.scopes.length === 0 ? '(all)' : token.scopes.join(',')}\t${token.source}\t${token.createdAt}`,
          );
        }
        return;
      case 'revoke':
        await tokens.revoke(requireId());
        io.out(`Revoked token '${requireId()}'.`);
        return;
      case 'rotate': {
        const issued = await tokens.rotate(requireId());
        io.out(`Rotated token '${issued.id}'; the old secret no longer works. New secret, shown only this once:`);
        io.out(issued.secret);
        return;
      }
      default:
        throw new CliError('usage: agent-gateway token create|list|revoke|rotate [--id NAME] [--scopes rpc,admin]', 2);
    }
  } catch (error) {
    if (isGatewayError(error)) throw new CliError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}
