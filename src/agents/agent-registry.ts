// The agent registry over the config's `agents:` section, with live management (create, update, delete,
// suspend, resume): each change is one ConfigStore commit, and every agent change, whatever its source
// (agents.*, config.patch, a rollback), is announced as agent:hot_added or agent:hot_removed.
import type { EventBus } from '../events/index.js';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { AgentConfig, ConfigChange, ConfigInput, ConfigStore, GatewayConfig, RawConfig } from '../config/index.js';
import { isForbiddenKey } from '../config/index.js';
import { agentNotFound, forbiddenKey, GatewayError } from '../errors.js';
import { PROVIDER_TABLE } from '../providers/index.js';
import type { AgentDefinition, AgentRegistry } from './types.js';

/** Agent configuration as written in the file: only the fields given, defaults not filled in. */
export type AgentFields = Partial<NonNullable<ConfigInput['agents']>[string]>;

export type AgentChangeKind = 'added' | 'updated' | 'removed' | 'suspended' | 'resumed';

export interface AgentChange {
  agentId: string;
  change: AgentChangeKind;
}

export interface ProviderCheckResult {
  ok: boolean;
  error?: string;
}

/** Checks that a provider's credentials work; `config` is the candidate config the agent would run with. */
export type ProviderCheck = (
  providerName: string,
  context: { config: GatewayConfig; signal?: AbortSignal },
) => Promise<ProviderCheckResult>;

export type AgentDryRunResult =
  | { dryRun: true; valid: true; config: AgentConfig }
  | { dryRun: true; valid: false; errors: string[]; config: unknown };

export interface ManagedAgentRegistry extends AgentRegistry {
  /** `agentId` omitted: derived from the name (`Research Bot` → `research-bot`). Throws `conflict` when taken. */
  create(agentId: string | undefined, fields: AgentFields & { name: string }): Promise<AgentDefinition>;
  /** Applies only the given fields. */
  update(agentId: string, fields: AgentFields): Promise<AgentDefinition>;
  /** Full validation (schema, provider existence, provider credentials when the provider changes); persists nothing. */
  dryRunUpdate(agentId: string, fields: AgentFields, signal?: AbortSignal): Promise<AgentDryRunResult>;
  /** Sessions of the agent stay in the store; new turns for it fail because get() no longer finds it. */
  delete(agentId: string): Promise<void>;
  suspend(agentId: string): Promise<AgentDefinition>;
  resume(agentId: string): Promise<AgentDefinition>;
  onChange(listener: (changes: AgentChange[]) => void): () => void;
  /** Stops following the ConfigStore. */
  close(): void;
}

export interface AgentRegistryDeps {
  configStore: ConfigStore;
  events: EventBus;
  log: Logger;
  /** Defaults to a static check: the provider is configured and has the key or URL its type needs. */
  checkProvider?: ProviderCheck;
  /**
   * Whether the bus's events reach every replica's feed (coordination: redis): then a change another replica wrote
   * was announced by it, and announcing it here too would show it twice.
   */
  eventsShared?: boolean;
}

const AGENT_ID = /^[A-Za-z0-9._-]+$/;

/** `Research Bot #2` → `research-bot-2`; `agent` when nothing usable is left. */
export function agentIdFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 64)
    .replace(/[-.]+$/, '');
  return slug === '' ? 'agent' : slug;
}

/**
 * A credential check that needs no network: a self-hosted type (its provider table row) needs a baseUrl, a hosted
 * service a non-empty apiKey.
 */
export const staticProviderCheck: ProviderCheck = async (providerName, { config }) => {
  const provider = config.providers[providerName];
  if (provider === undefined) return { ok: false, error: `provider '${providerName}' is not configured` };
  if (PROVIDER_TABLE[provider.type].selfHosted) {
    return provider.baseUrl === undefined ? { ok: false, error: 'baseUrl is not set' } : { ok: true };
  }
  return provider.apiKey === undefined || provider.apiKey === ''
    ? { ok: false, error: 'apiKey is empty or its environment variable is not set' }
    : { ok: true };
};

/** What changed between two `agents:` sections, suspensions and resumptions named as such. */
export function diffAgents(previous: Record<string, AgentConfig>, next: Record<string, AgentConfig>): AgentChange[] {
  const changes: AgentChange[] = [];
  for (const agentId of Object.keys(previous)) {
    if (!Object.hasOwn(next, agentId)) changes.push({ agentId, change: 'removed' });
  }
  for (const [agentId, config] of Object.entries(next)) {
    const before = previous[agentId];
    if (before === undefined) {
      changes.push({ agentId, change: 'added' });
      continue;
    }
    const { suspended: wasSuspended, ...beforeRest } = before;
    const { suspended: isSuspended, ...rest } = config;
    if (!isDeepStrictEqual(beforeRest, rest)) changes.push({ agentId, change: 'updated' });
    if (wasSuspended !== isSuspended) changes.push({ agentId, change: isSuspended ? 'suspended' : 'resumed' });
  }
  return changes;
}

function withoutUndefined(fields: object): RawConfig {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function isRecord(value: unknown): value is RawConfig {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rawAgents(raw: RawConfig): RawConfig {
  return isRecord(raw.agents) ? { ...raw.agents } : {};
}

function rawAgent(agents: RawConfig, agentId: string): RawConfig {
  const agent = Object.hasOwn(agents, agentId) ? agents[agentId] : undefined;
  if (!isRecord(agent)) throw agentNotFound(agentId);
  return { ...agent };
}

/** Only the given fields change; `budget` merges key by key like the rest of a config patch. */
function mergeFields(existing: RawConfig, fields: AgentFields): RawConfig {
  const merged: RawConfig = { ...existing, ...withoutUndefined(fields) };
  if (fields.budget !== undefined && isRecord(existing.budget))
    merged.budget = { ...existing.budget, ...withoutUndefined(fields.budget) };
  return merged;
}

export function createAgentRegistry({
  configStore,
  events,
  log,
  checkProvider = staticProviderCheck,
  eventsShared = false,
}: AgentRegistryDeps): ManagedAgentRegistry {
  const listeners = new Set<(changes: AgentChange[]) => void>();

  function toDefinition(agentId: string, config: AgentConfig): AgentDefinition {
    return { id: agentId, config, status: config.suspended ? 'suspended' : 'active' };
  }

  function get(agentId: string): AgentDefinition | undefined {
    const { agents } = configStore.get();
    const config = Object.hasOwn(agents, agentId) ? agents[agentId] : undefined;
    return config === undefined ? undefined : toDefinition(agentId, config);
  }

  function mustGet(agentId: string): AgentDefinition {
    const agent = get(agentId);
    if (agent === undefined) throw agentNotFound(agentId);
    return agent;
  }

  function onConfigChange({ previous, config, isRemote }: ConfigChange): void {
    const changes = diffAgents(previous.agents, config.agents);
    if (changes.length === 0) return;
    for (const { agentId, change } of changes) {
      if (isRemote === true && eventsShared) continue;
      const isRemoval = change === 'removed' || change === 'suspended';
      events.emit(isRemoval ? 'agent:hot_removed' : 'agent:hot_added', { agentId, change });
    }
    for (const listener of listeners) {
      try {
        listener(changes);
      } catch (error) {
        log.error({ err: error }, 'agent change listener failed');
      }
    }
  }
  const unsubscribe = configStore.onChange(onConfigChange);

  function editAgent(agentId: string, fields: AgentFields) {
    return (raw: RawConfig): RawConfig => {
      const agents = rawAgents(raw);
      return { ...raw, agents: { ...agents, [agentId]: mergeFields(rawAgent(agents, agentId), fields) } };
    };
  }

  async function setSuspended(agentId: string, isSuspended: boolean): Promise<AgentDefinition> {
    const current = mustGet(agentId);
    if (current.config.suspended === isSuspended) return current;
    await configStore.update(
      editAgent(agentId, { suspended: isSuspended }),
      `agents.${isSuspended ? 'suspend' : 'resume'} ${agentId}`,
    );
    return mustGet(agentId);
  }

  return {
    get,
    list: () => Object.entries(configStore.get().agents).map(([agentId, config]) => toDefinition(agentId, config)),
    defaultAgentId() {
      const ids = Object.keys(configStore.get().agents);
      return ids.includes('default') ? 'default' : ids[0];
    },
    async create(agentId, fields) {
      const id = agentId ?? agentIdFromName(fields.name);
      // The id becomes a key of `agents:`; refused here so that nothing is written or committed.
      if (isForbiddenKey(id)) throw forbiddenKey('agents', id, agentId === undefined ? 'name' : 'agentId');
      if (!AGENT_ID.test(id)) {
        throw new GatewayError('invalid_params', `'agentId' must use letters, digits, dot, underscore or hyphen`, {
          param: 'agentId',
        });
      }
      await configStore.update((raw) => {
        const agents = rawAgents(raw);
        if (Object.hasOwn(agents, id))
          throw new GatewayError('conflict', `Agent '${id}' already exists`, { param: 'agentId' });
        return { ...raw, agents: { ...agents, [id]: withoutUndefined(fields) } };
      }, `agents.create ${id}`);
      return mustGet(id);
    },
    async update(agentId, fields) {
      mustGet(agentId);
      const names = Object.keys(withoutUndefined(fields));
      await configStore.update(
        editAgent(agentId, fields),
        `agents.update ${agentId}${names.length > 0 ? `: ${names.join(', ')}` : ''}`,
      );
      return mustGet(agentId);
    },
    async dryRunUpdate(agentId, fields, signal) {
      const current = mustGet(agentId);
      const edit = editAgent(agentId, fields);
      let candidateRaw: unknown;
      const outcome = configStore.check((raw) => {
        const next = edit(raw);
        candidateRaw = rawAgents(next)[agentId];
        return next;
      });
      const errors = outcome.valid ? [] : [...outcome.errors];
      const provider = fields.provider;
      if (outcome.valid && provider !== undefined && provider !== current.config.provider) {
        const result = await checkProvider(provider, { config: outcome.config, signal });
        if (!result.ok)
          errors.push(
            `agents.${agentId}.provider: credential check failed for '${provider}': ${result.error ?? 'unknown error'}`,
          );
      }
      const candidate = outcome.valid ? outcome.config.agents[agentId] : undefined;
      if (errors.length === 0 && candidate !== undefined) return { dryRun: true, valid: true, config: candidate };
      return { dryRun: true, valid: false, errors, config: candidate ?? candidateRaw };
    },
    async delete(agentId) {
      mustGet(agentId);
      await configStore.update((raw) => {
        const agents = rawAgents(raw);
        rawAgent(agents, agentId);
        delete agents[agentId];
        return { ...raw, agents };
      }, `agents.delete ${agentId}`);
    },
    suspend: (agentId) => setSuspended(agentId, true),
    resume: (agentId) => setSuspended(agentId, false),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: unsubscribe,
  };
}
