// What a first start (or `init --detect`) writes for what it found: a provider per key and per local server, a default
// agent on the best one and `embeddings:` where one can embed, in a documented preference order; and the lines that
// say so. Keys are written as `${ENV}` references, never their values.
import type { Findings, HostedType } from './detect-models.js';
import type { LocalServer, LocalServerKind } from './probe-local.js';

/** Models of one local server written into its provider; a server listing more has the rest used as `<provider>/<id>`. */
const MAX_LISTED_MODELS = 100;
/** Model ids named on one "Found" line. */
const MAX_SHOWN_MODELS = 10;

interface HostedDefaults {
  name: string;
  chat: { id: string; contextWindow: number; maxTokens: number };
  embeddings?: string;
}

/** The model each hosted provider's default agent gets, and its embedding model where the provider has one. */
const HOSTED_DEFAULTS: Readonly<Record<HostedType, HostedDefaults>> = {
  openai: {
    name: 'openai',
    chat: { id: 'gpt-4.1-mini', contextWindow: 1_047_576, maxTokens: 32_768 },
    embeddings: 'text-embedding-3-small',
  },
  anthropic: { name: 'anthropic', chat: { id: 'claude-sonnet-4-5', contextWindow: 200_000, maxTokens: 8_192 } },
  google: {
    name: 'gemini',
    chat: { id: 'gemini-2.5-flash', contextWindow: 1_048_576, maxTokens: 8_192 },
    embeddings: 'gemini-embedding-001',
  },
};

/** The default agent's preference among hosted providers (before any local server). */
const HOSTED_AGENT_RANK: Readonly<Record<HostedType, number>> = { openai: 0, anthropic: 1, google: 2 };

const SERVER_LABELS: Readonly<Record<LocalServerKind, string>> = {
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  llamacpp: 'llama.cpp',
  vllm: 'vLLM',
  local: 'an OpenAI-compatible server',
};

/** Model names that are embedding models (nomic-embed-text, mxbai-embed-large, bge-m3, all-minilm …), not chat ones. */
const EMBEDDING_MODEL = /embed|bge|minilm/i;

interface ModelChoice {
  provider: string;
  model: string;
}

/** One provider as it would be written, with the choices it offers. */
interface Candidate {
  name: string;
  provider: Record<string, unknown>;
  chat?: string;
  embeddings?: string;
  /** Lower is preferred for the default agent. */
  agentRank: number;
  /** Lower is preferred for `embeddings:`. */
  embeddingsRank: number;
}

/** What is already configured: entries of these names are kept as they are. */
export interface ExistingConfig {
  providers: ReadonlySet<string>;
  agents: ReadonlySet<string>;
  hasEmbeddings: boolean;
}

export const NOTHING_CONFIGURED: ExistingConfig = { providers: new Set(), agents: new Set(), hasEmbeddings: false };

export interface DetectedPlan {
  /** The new providers by name. */
  providers: Record<string, Record<string, unknown>>;
  agent?: ModelChoice;
  embeddings?: ModelChoice;
  /** Config keys found again but already configured, left as they are. */
  kept: string[];
}

/** The default agent's id. */
export const DEFAULT_AGENT = 'default';

function hostedCandidate(type: HostedType, keyEnv: string, baseUrlEnv: string | undefined): Candidate {
  const defaults = HOSTED_DEFAULTS[type];
  return {
    name: defaults.name,
    provider: {
      type,
      apiKey: `\${${keyEnv}}`,
      ...(baseUrlEnv === undefined ? {} : { baseUrl: `\${${baseUrlEnv}}` }),
      models: [defaults.chat],
    },
    chat: defaults.chat.id,
    ...(defaults.embeddings === undefined ? {} : { embeddings: defaults.embeddings }),
    agentRank: HOSTED_AGENT_RANK[type],
    // Hosted embeddings: OpenAI's first, Gemini's after any local server's.
    embeddingsRank: type === 'openai' ? 0 : 1_000,
  };
}

function localCandidate(server: LocalServer, name: string, rank: number): Candidate {
  const chatModels = server.models.filter((id) => !EMBEDDING_MODEL.test(id));
  const embeddingModel = server.models.find((id) => EMBEDDING_MODEL.test(id));
  return {
    name,
    provider: {
      type: 'openai-compatible',
      baseUrl: `${server.url}/v1`,
      models: chatModels.slice(0, MAX_LISTED_MODELS).map((id) => ({ id })),
    },
    ...(chatModels[0] === undefined ? {} : { chat: chatModels[0] }),
    ...(embeddingModel === undefined ? {} : { embeddings: embeddingModel }),
    agentRank: 100 + rank,
    embeddingsRank: 100 + rank,
  };
}

/** Every provider the findings offer, named by type or server kind (`local-<port>` etc. when a name repeats). */
function candidatesOf(findings: Findings): Candidate[] {
  const candidates = findings.keys.map(({ type, keyEnv, baseUrlEnv }) => hostedCandidate(type, keyEnv, baseUrlEnv));
  const taken = new Set(candidates.map((candidate) => candidate.name));
  findings.servers.forEach((server, index) => {
    const port = new URL(server.url).port;
    const name = taken.has(server.kind) ? `${server.kind}-${port}` : server.kind;
    taken.add(name);
    candidates.push(localCandidate(server, name, index));
  });
  return candidates;
}

/**
 * The providers to add (none of a name already configured), the default agent on the best new one offering a chat
 * model (OpenAI, Anthropic, Gemini, then the local servers in probe-list order) unless an agent `default` exists, and
 * embeddings on the best new one that can embed (OpenAI, the local servers in order, Gemini) unless configured.
 */
export function planDetected(findings: Findings, existing: ExistingConfig): DetectedPlan {
  const kept: string[] = [];
  const added: Candidate[] = [];
  for (const candidate of candidatesOf(findings)) {
    if (existing.providers.has(candidate.name)) kept.push(`providers.${candidate.name}`);
    else added.push(candidate);
  }
  const best = (pick: (candidate: Candidate) => string | undefined, rank: (candidate: Candidate) => number) => {
    const [first] = added.filter((candidate) => pick(candidate) !== undefined).sort((a, b) => rank(a) - rank(b));
    const model = first === undefined ? undefined : pick(first);
    return first === undefined || model === undefined ? undefined : { provider: first.name, model };
  };
  let agent = best(
    (candidate) => candidate.chat,
    (candidate) => candidate.agentRank,
  );
  if (agent !== undefined && existing.agents.has(DEFAULT_AGENT)) {
    kept.push(`agents.${DEFAULT_AGENT}`);
    agent = undefined;
  }
  let embeddings = best(
    (candidate) => candidate.embeddings,
    (candidate) => candidate.embeddingsRank,
  );
  if (embeddings !== undefined && existing.hasEmbeddings) {
    kept.push('embeddings');
    embeddings = undefined;
  }
  return {
    providers: Object.fromEntries(added.map((candidate) => [candidate.name, candidate.provider])),
    ...(agent === undefined ? {} : { agent }),
    ...(embeddings === undefined ? {} : { embeddings }),
    kept,
  };
}

export function isEmptyPlan(plan: DetectedPlan): boolean {
  return Object.keys(plan.providers).length === 0 && plan.agent === undefined && plan.embeddings === undefined;
}

/** The plan as config sections, to merge into a document (or write as a new one). */
export function sectionsOf(plan: DetectedPlan): Record<string, unknown> {
  return {
    ...(Object.keys(plan.providers).length === 0 ? {} : { providers: plan.providers }),
    ...(plan.agent === undefined
      ? {}
      : { agents: { [DEFAULT_AGENT]: { name: 'Assistant', provider: plan.agent.provider, model: plan.agent.model } } }),
    ...(plan.embeddings === undefined ? {} : { embeddings: plan.embeddings }),
  };
}

/** `providers.openai, agents.default (openai/gpt-4.1-mini), embeddings (openai/text-embedding-3-small)` */
export function describePlan(plan: DetectedPlan): string {
  return [
    ...Object.keys(plan.providers).map((name) => `providers.${name}`),
    ...(plan.agent === undefined ? [] : [`agents.${DEFAULT_AGENT} (${plan.agent.provider}/${plan.agent.model})`]),
    ...(plan.embeddings === undefined ? [] : [`embeddings (${plan.embeddings.provider}/${plan.embeddings.model})`]),
  ].join(', ');
}

/** One line per key and per server found; or why nothing was found, with what to do. */
export function describeFindings(findings: Findings, probeUrls: readonly string[]): string[] {
  const lines = findings.keys.map(
    ({ type, keyEnv }) => `Found ${keyEnv}: provider ${HOSTED_DEFAULTS[type].name} (${type})`,
  );
  for (const server of findings.servers) {
    const shown = server.models.slice(0, MAX_SHOWN_MODELS).join(', ');
    const more = server.models.length > MAX_SHOWN_MODELS ? ` and ${server.models.length - MAX_SHOWN_MODELS} more` : '';
    lines.push(
      `Found ${SERVER_LABELS[server.kind]} at ${server.url}: ${server.models.length === 0 ? 'no models' : shown + more}`,
    );
  }
  if (lines.length === 0) {
    const probed = probeUrls.length === 0 ? 'no local server probed' : `nothing answered at ${probeUrls.join(', ')}`;
    lines.push(
      `No LLM provider found (no OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY; ${probed}).`,
      'Add one under providers: and agents: (README "Configuration"), or start one and run `agent-gateway init --detect`.',
    );
  }
  return lines;
}
