// Holds the built-in tools, gives the model their JSON Schemas, and runs one call: errors become results, never throws.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ToolSpec } from '../../providers/index.js';
import type { ToolContext, ToolDefinition, ToolErrorKind } from './types.js';

export interface ToolCallOutcome {
  ok: boolean;
  /** What the model sees: the JSON result, or `Error: …`. */
  content: string;
  errorKind?: ToolErrorKind;
  durationMs: number;
  resultBytes: number;
  /** sha256 fingerprint of the content, so reports never need the content itself. */
  resultDigest: string;
}

export interface ToolRegistry {
  names(): string[];
  has(name: string): boolean;
  specs(names: readonly string[]): ToolSpec[];
  /** `limits` overrides the registry's for this call (an agent's `budget`). */
  execute(name: string, input: unknown, ctx: ToolContext, limits?: Partial<ToolLimits>): Promise<ToolCallOutcome>;
  /** Adds a capability module's tools; a name already taken throws. */
  register(tools: readonly ToolDefinition[]): void;
}

export interface ToolLimits {
  /** Upper bound for one tool call (ms). */
  timeoutMs: number;
  /** Results longer than this many characters are cut before they reach the model (the digest covers the full text). */
  maxResultChars: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = { timeoutMs: 30_000, maxResultChars: 16_000 };

export interface ToolRegistryOptions extends Partial<ToolLimits> {
  now?: () => number;
}

function digest(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

/** A call that failed or was refused: the model sees `Error: <message>`. */
export function toolFailure(kind: ToolErrorKind, message: string, durationMs: number): ToolCallOutcome {
  const content = `Error: ${message}`;
  return {
    ok: false,
    content,
    errorKind: kind,
    durationMs,
    resultBytes: Buffer.byteLength(content),
    resultDigest: digest(content),
  };
}

export function createToolRegistry(tools: readonly ToolDefinition[], options: ToolRegistryOptions = {}): ToolRegistry {
  const { now = Date.now } = options;
  const defaults: ToolLimits = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TOOL_LIMITS.timeoutMs,
    maxResultChars: options.maxResultChars ?? DEFAULT_TOOL_LIMITS.maxResultChars,
  };
  const byName = new Map<string, ToolDefinition>();
  const register = (added: readonly ToolDefinition[]) => {
    for (const tool of added) {
      if (byName.has(tool.name)) throw new TypeError(`tool '${tool.name}' is declared twice`);
      byName.set(tool.name, tool);
    }
  };
  register(tools);
  const specCache = new Map<string, ToolSpec>();

  function spec(tool: ToolDefinition): ToolSpec {
    let cached = specCache.get(tool.name);
    if (cached === undefined) {
      const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<
        string,
        unknown
      >;
      cached = { name: tool.name, description: tool.description, inputSchema };
      specCache.set(tool.name, cached);
    }
    return cached;
  }

  const failure = (kind: ToolErrorKind, message: string, startedAt: number) =>
    toolFailure(kind, message, now() - startedAt);

  return {
    register,
    names: () => [...byName.keys()],
    has: (name) => byName.has(name),
    specs: (names) =>
      names.flatMap((name) => {
        const tool = byName.get(name);
        return tool === undefined ? [] : [spec(tool)];
      }),
    async execute(name, input, ctx, limits = {}) {
      const timeoutMs = limits.timeoutMs ?? defaults.timeoutMs;
      const maxResultChars = limits.maxResultChars ?? defaults.maxResultChars;
      const startedAt = now();
      const tool = byName.get(name);
      if (tool === undefined) return failure('unknown_tool', `unknown tool '${name}'`, startedAt);
      const parsed = tool.input.safeParse(input);
      if (!parsed.success) {
        const detail = parsed.error.issues
          .map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`)
          .join('; ');
        return failure('invalid_input', `invalid input for ${name}: ${detail}`, startedAt);
      }
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([ctx.signal, timeout]);
      try {
        const result = await Promise.race([
          tool.execute(parsed.data, { ...ctx, signal }),
          new Promise<never>((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
        ]);
        const full = typeof result === 'string' ? result : JSON.stringify(result ?? null);
        const content =
          full.length > maxResultChars
            ? `${full.slice(0, maxResultChars)}… [truncated ${full.length - maxResultChars} characters]`
            : full;
        return {
          ok: true,
          content,
          durationMs: now() - startedAt,
          resultBytes: Buffer.byteLength(full),
          resultDigest: digest(full),
        };
      } catch (error) {
        if (timeout.aborted) return failure('timeout', `${name} timed out after ${timeoutMs} ms`, startedAt);
        if (ctx.signal.aborted) return failure('aborted', `${name} was cancelled`, startedAt);
        return failure('failed', error instanceof Error ? error.message : String(error), startedAt);
      }
    },
  };
}
