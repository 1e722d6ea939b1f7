// Request fields /v1/chat/completions and /v1/responses share: function tools, metadata, output formats, and the provider check.
import { z } from 'zod';
import { safeKeySchema } from '../../config/index.js';
import { GatewayError } from '../../errors.js';
import type { CallSettings, ModelRouter, ToolSpec, WireResponseFormat } from '../../providers/index.js';
import type { TurnTarget } from './turn-input.js';

/** OpenAI's function definition: a name models can say, a description and a JSON Schema for the arguments. */
export const functionTool = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().nullable().optional(),
});

export type FunctionTool = z.infer<typeof functionTool>;

/** OpenAI's bounds: 16 pairs, keys up to 64 and values up to 512 characters. */
export const metadataSchema = z
  .record(safeKeySchema.max(64), z.string().max(512))
  .refine((value) => Object.keys(value).length <= 16, 'must hold at most 16 pairs')
  .nullable()
  .optional();

/** The client's tools as the model sees them; two with one name are refused, as the model could not tell them apart. */
export function clientToolSpecs(tools: readonly FunctionTool[], param: string): ToolSpec[] | undefined {
  if (tools.length === 0) return undefined;
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    if (seen.has(tool.name))
      throw new GatewayError('invalid_params', `Tool name '${tool.name}' is given twice`, {
        param: `${param}[${index}].name`,
      });
    seen.add(tool.name);
    return {
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict == null ? {} : { strict: tool.strict }),
    };
  });
}

/** OpenAI's processing tiers; `auto` and `default` leave it to the provider's own default, so they ask nothing. */
export const serviceTierField = z.enum(['auto', 'default', 'flex', 'scale', 'priority']).nullable().optional();

/** GPT-5's answer length (chat `verbosity`, Responses `text.verbosity`). */
export const verbosityField = z.enum(['low', 'medium', 'high']).nullable().optional();

/** The fields chat and Responses share that only some providers honour (DESIGN §3 third wave: passed on or refused, never dropped). */
export interface ProviderHints {
  service_tier?: z.infer<typeof serviceTierField>;
  prompt_cache_key?: string | null | undefined;
  safety_identifier?: string | null | undefined;
}

/** Adds what the hints ask of the provider to `settings`. */
export function addProviderHints(settings: CallSettings, hints: ProviderHints): void {
  const tier = hints.service_tier;
  if (tier != null && tier !== 'auto' && tier !== 'default') settings.serviceTier = tier;
  if (hints.prompt_cache_key != null) settings.promptCacheKey = hints.prompt_cache_key;
  if (hints.safety_identifier != null) settings.safetyIdentifier = hints.safety_identifier;
}

/** Where the hints' CallSettings paths come from; the same names on both endpoints. */
export const PROVIDER_HINT_PARAMS: Readonly<Record<string, string>> = {
  serviceTier: 'service_tier',
  promptCacheKey: 'prompt_cache_key',
  safetyIdentifier: 'safety_identifier',
};

type FormatField =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema?: Record<string, unknown> | undefined;
      strict?: boolean | null | undefined;
    };

/** A response format in the adapters' terms; a json_schema without a schema accepts any object. */
export function responseFormatOf(format: FormatField): WireResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    name: format.name,
    schema: format.schema ?? { type: 'object' },
    ...(format.strict == null ? {} : { strict: format.strict }),
  };
}

/**
 * Refuses, before any stream starts, settings the target's model cannot honour (DESIGN §3: 400 naming field and
 * provider, never a silent drop). Fallback models that cannot honour them are skipped when the turn runs.
 */
export function assertSettingsHonoured(
  { router }: { router: Pick<ModelRouter, 'unsupported'> },
  target: TurnTarget,
  settings: CallSettings,
  params: Readonly<Record<string, string>>,
): void {
  if (Object.keys(settings).length === 0) return;
  const model = target.models.primary;
  const refused = router.unsupported(model, settings);
  const first = refused[0];
  if (first === undefined) return;
  const param = params[first] ?? first;
  throw new GatewayError('invalid_params', `Provider '${model.provider}' does not support '${param}'`, {
    param,
    provider: model.provider,
  });
}
