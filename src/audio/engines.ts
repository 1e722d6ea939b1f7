// Builds the engines of `audio.engines` in their configured order, each with the voice source it is reported under.
import type { AudioConfig, GatewayConfig } from '../config/index.js';
import { baseUrlOf, PROVIDER_TABLE } from '../providers/index.js';
import { createOpenAiEngine } from './openai-engine.js';
import { createPocketsphinxEngine } from './pocketsphinx-engine.js';
import type { EngineIdentity, Transcriber } from './transcriber.js';

/** The provider of the default agent (`default`, else the first listed): the "main key" an unnamed engine follows. */
function mainProvider(config: Pick<GatewayConfig, 'agents'>): string | undefined {
  const agents = config.agents;
  return (agents.default ?? Object.values(agents)[0])?.provider;
}

/** An engine that cannot be built from the config: it fails every call with a message saying what to configure. */
function misconfigured(identity: EngineIdentity, message: string): Transcriber {
  return { identity, transcribe: async () => ({ ok: false, errorKind: 'dependency', message }) };
}

export function buildEngines(config: Pick<GatewayConfig, 'agents' | 'providers' | 'audio'>): Transcriber[] {
  const audio: AudioConfig = config.audio;
  return audio.engines.map((engine, index) => {
    if (engine.kind === 'pocketsphinx') {
      return createPocketsphinxEngine({
        ...engine,
        timeoutMs: audio.timeoutMs,
        source: index === 0 ? 'keyless-local' : 'fallback',
      });
    }
    const provider = engine.provider ?? mainProvider(config);
    const chosenBy = index > 0 ? 'fallback' : engine.provider === undefined ? 'follow-main-key' : 'explicit';
    const providerConfig = provider === undefined ? undefined : config.providers[provider];
    if (provider === undefined || providerConfig === undefined) {
      return misconfigured(
        { provider: provider ?? 'none', keyless: true, model: engine.model, source: chosenBy },
        'No provider for the openai-compatible engine: name one in audio.engines[].provider or give the default agent a provider',
      );
    }
    const apiKey =
      providerConfig.apiKey === undefined || providerConfig.apiKey.length === 0 ? undefined : providerConfig.apiKey;
    const capabilities = PROVIDER_TABLE[providerConfig.type];
    if (!capabilities.canTranscribe) {
      return misconfigured(
        { provider, keyless: apiKey === undefined, model: engine.model, source: chosenBy },
        `Provider '${provider}' is a ${providerConfig.type} provider, which has no /audio/transcriptions endpoint; name an OpenAI-compatible provider in audio.engines[].provider`,
      );
    }
    // A hosted service refuses a keyless call; a self-hosted server may take one.
    if (!capabilities.selfHosted && apiKey === undefined) {
      return {
        identity: { provider, keyless: true, model: engine.model, source: chosenBy },
        transcribe: async () => ({
          ok: false,
          errorKind: 'auth_required',
          message: `Provider '${provider}' has no apiKey`,
        }),
      };
    }
    return createOpenAiEngine({
      provider,
      baseUrl: baseUrlOf(providerConfig),
      apiKey,
      model: engine.model,
      timeoutMs: audio.timeoutMs,
      source: chosenBy,
    });
  });
}
