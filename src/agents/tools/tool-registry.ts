// Holds the built-in tools and the named sources of others (mcp:), gives the model their JSON Schemas, and runs one
// call: errors become results, never throws.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isGatewayError } from '../../errors.js';
import type { ToolSpec } from '../../providers/index.js';
import { THROWN_TOOL_ERROR_KINDS, type ToolContext, type ToolDefinition, type ToolErrorKind } from './types.js';

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

/** Where the tools of `<prefix>:<ref>` entries of an agent's list come from (`mcp:files`, `mcp:github/create_issue`). */
export interface ToolSource {
  /** The tools `ref` stands for now, with stand-ins that fail for what cannot be reached; never rejects. */
  resolve(ref: string): Promise<ToolDefinition[]>;
  /** Whether `ref` names something configured: the start warning names the entries that do not. */
  knows(ref: string): boolean;
}

/** One turn's tools: what the model is offered and how each call runs. */
export interface TurnTools {
  readonly specs: readonly ToolSpec[];
  /** The stand-ins offered for tools that cannot be reached, with why. */
  readonly unavailable: readonly { toolName: string; reason: string }[];
  execute(name: string, input: unknown, ctx: ToolContext, limits?: Partial<ToolLimits>): Promise<ToolCallOutcome>;
}

export interface ToolRegistry {
  names(): string[];
  /** A built-in tool's name, or a source entry (`mcp:files`) its source knows. */
  has(name: string): boolean;
  specs(names: readonly string[]): ToolSpec[];
  /**
   * An agent's tools for one turn. A list with no source entries is answered at once from a cache (no await);
   * one with source entries resolves them once for the turn.
   */
  forTurn(names: readonly string[]): TurnTools | Promise<TurnTools>;
  /** `limits` overrides the registry's for this call (an agent's `budget`). */
  execute(name: string, input: unknown, ctx: ToolContext, limits?: Partial<ToolLimits>): Promise<ToolCallOutcome>;
  /** Adds a capability module's tools; a name already taken throws. */
  register(tools: readonly ToolDefinition[]): void;
  /** Adds the source of `<prefix>:…` entries; a prefix already taken throws. */
  addSource(prefix: string, source: ToolSource): void;
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

/** The error kind a thrown error names for itself (an MCP server's unavailability), else `failed`. */
function thrownKind(error: unknown): ToolErrorKind {
  if (!isGatewayError(error)) return 'failed';
  const named = error.details.toolErrorKind;
  return THROWN_TOOL_ERROR_KINDS.find((kind) => kind === named) ?? 'failed';
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
  const sources = new Map<string, ToolSource>();
  /** Per agent tool list (by identity): its turn tools when it has no source entries, null when it has. */
  let staticTurns = new WeakMap<readonly string[], TurnTools | null>();
  const register = (added: readonly ToolDefinition[]) => {
    for (const tool of added) {
      if (byName.has(tool.name)) throw new TypeError(`tool '${tool.name}' is declared twice`);
      byName.set(tool.name, tool);
    }
    staticTurns = new WeakMap();
  };
  register(tools);
  const specCache = new Map<string, ToolSpec>();
  const sourceSpecs = new WeakMap<ToolDefinition, ToolSpec>();

  function spec(tool: ToolDefinition): ToolSpec {
    if (tool.inputSchema !== undefined) {
      let given = sourceSpecs.get(tool);
      if (given === undefined) {
        const { $schema: _ignored, ...inputSchema } = tool.inputSchema;
        given = { name: tool.name, description: tool.description, inputSchema };
        sourceSpecs.set(tool, given);
      }
      return given;
    }
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

  /** The source and its ref for a `<prefix>:<ref>` entry whose prefix has a source. */
  function sourceEntry(name: string): { source: ToolSource; ref: string } | undefined {
    const colon = name.indexOf(':');
    if (colon <= 0) return undefined;
    const source = sources.get(name.slice(0, colon));
    return source === undefined ? undefined : { source, ref: name.slice(colon + 1) };
  }

  const builtinSpecs = (names: readonly string[]) =>
    names.flatMap((name) => {
      const tool = byName.get(name);
      return tool === undefined ? [] : [spec(tool)];
    });

  const failure = (kind: ToolErrorKind, message: string, startedAt: number) =>
    toolFailure(kind, message, now() - startedAt);

  async function run(
    tool: ToolDefinition | undefined,
    name: string,
    input: unknown,
    ctx: ToolContext,
    limits: Partial<ToolLimits>,
  ): Promise<ToolCallOutcome> {
    const timeoutMs = limits.timeoutMs ?? defaults.timeoutMs;
    const maxResultChars = limits.maxResultChars ?? defaults.maxResultChars;
    const startedAt = now();
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
      return failure(thrownKind(error), error instanceof Error ? error.message : String(error), startedAt);
    }
  }

  const execute: TurnTools['execute'] = (name, input, ctx, limits = {}) =>
    run(byName.get(name), name, input, ctx, limits);

  async function resolveTurn(names: readonly string[]): Promise<TurnTools> {
    const resolved = await Promise.all(
      names.map((name) => {
        const entry = sourceEntry(name);
        if (entry !== undefined) return entry.source.resolve(entry.ref);
        const tool = byName.get(name);
        return tool === undefined ? [] : [tool];
      }),
    );
    const own = new Map<string, ToolDefinition>();
    for (const tool of resolved.flat()) if (!own.has(tool.name)) own.set(tool.name, tool);
    const listed = [...own.values()];
    return {
      specs: listed.map(spec),
      unavailable: listed.flatMap((tool) =>
        tool.unavailable === undefined ? [] : [{ toolName: tool.name, reason: tool.unavailable }],
      ),
      execute: (name, input, ctx, limits = {}) => run(own.get(name) ?? byName.get(name), name, input, ctx, limits),
    };
  }

  return {
    register,
    addSource(prefix, source) {
      if (sources.has(prefix)) throw new TypeError(`tool source '${prefix}' is added twice`);
      sources.set(prefix, source);
      staticTurns = new WeakMap();
    },
    names: () => [...byName.keys()],
    has: (name) => {
      const entry = sourceEntry(name);
      return entry === undefined ? byName.has(name) : entry.source.knows(entry.ref);
    },
    specs: builtinSpecs,
    forTurn(names) {
      let cached = staticTurns.get(names);
      if (cached === undefined) {
        cached = names.some((name) => sourceEntry(name) !== undefined)
          ? null
          : { specs: builtinSpecs(names), unavailable: [], execute };
        staticTurns.set(names, cached);
      }
      return cached ?? resolveTurn(names);
    },
    execute,
  };
}
