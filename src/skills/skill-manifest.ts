// Reads one SKILL.md in the Agent Skills format: YAML front matter (name, description, allowed-tools) and a markdown
// body, each checked against its rule or cap; a failure is the reason a skill:rejected event carries.
import { parse as parseYaml } from 'yaml';
import { detectInjection } from '../memory/index.js';
import type { SkillsConfig } from '../config/index.js';

/** Agent Skills: a name is at most 64 characters. */
export const MAX_SKILL_NAME_CHARS = 64;
/** Agent Skills: a description is at most 1024 characters. */
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;
/** Tools one allowed-tools list names at most, each at most this many characters. */
export const MAX_ALLOWED_TOOLS = 128;
export const MAX_TOOL_NAME_CHARS = 128;

/** Agent Skills: lowercase letters, digits and single hyphens, not at either end. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface SkillManifest {
  name: string;
  description: string;
  allowedTools: readonly string[] | null;
  body: string;
}

export type ManifestResult = { ok: true; manifest: SkillManifest } | { ok: false; reason: string };

type ManifestCaps = Pick<SkillsConfig, 'maxManifestChars' | 'maxBodyChars'>;

const fail = (reason: string): ManifestResult => ({ ok: false, reason });

/** The front matter between the opening `---` line and the next `---` line, and the body after it. */
function split(text: string): { front: string; body: string } | undefined {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const opening = /^---[ \t]*\r?\n/.exec(source);
  if (opening === null) return undefined;
  const rest = source.slice(opening[0].length);
  const closing = /^---[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (closing === null) return undefined;
  return { front: rest.slice(0, closing.index), body: rest.slice(closing.index + closing[0].length) };
}

function allowedToolsOf(value: unknown): readonly string[] | string {
  const names =
    typeof value === 'string'
      ? value.split(/\s+/).filter((name) => name.length > 0)
      : Array.isArray(value) && value.every((name): name is string => typeof name === 'string')
        ? value.map((name) => name.trim()).filter((name) => name.length > 0)
        : undefined;
  if (names === undefined) return 'allowed-tools must be a space-separated string or a list of tool names';
  if (names.length > MAX_ALLOWED_TOOLS) return `allowed-tools names over ${MAX_ALLOWED_TOOLS} tools`;
  if (names.some((name) => name.length > MAX_TOOL_NAME_CHARS))
    return `allowed-tools has a tool name over ${MAX_TOOL_NAME_CHARS} characters`;
  return [...new Set(names)];
}

/** The rule a name breaks, or undefined when it is a valid Agent Skills name matching its folder. */
export function skillNameProblem(name: string, folder: string): string | undefined {
  if (name.length > MAX_SKILL_NAME_CHARS) return `name is over ${MAX_SKILL_NAME_CHARS} characters (Agent Skills)`;
  if (!SKILL_NAME.test(name))
    return 'name must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen (Agent Skills)';
  if (name !== folder) return `name '${name}' does not match its folder '${folder}' (Agent Skills)`;
  return undefined;
}

/** Parses and checks the text of `<folder>/SKILL.md`; the caps are the config's as it is now. */
export function parseSkillManifest(text: string, folder: string, caps: ManifestCaps): ManifestResult {
  const parts = split(text);
  if (parts === undefined) return fail('SKILL.md has no YAML front matter between --- lines');
  if (parts.front.length > caps.maxManifestChars)
    return fail(
      `front matter is ${parts.front.length} characters, over skills.maxManifestChars (${caps.maxManifestChars})`,
    );
  const body = parts.body.trim();
  if (body.length > caps.maxBodyChars)
    return fail(`body is ${body.length} characters, over skills.maxBodyChars (${caps.maxBodyChars})`);
  let front: unknown;
  try {
    front = parseYaml(parts.front, { maxAliasCount: 16 });
  } catch {
    return fail('front matter is not valid YAML');
  }
  if (typeof front !== 'object' || front === null || Array.isArray(front))
    return fail('front matter must be a YAML mapping');
  const fields = new Map<string, unknown>(Object.entries(front));
  const name = fields.get('name');
  if (typeof name !== 'string' || name.length === 0) return fail('name is required (Agent Skills)');
  const nameProblem = skillNameProblem(name, folder);
  if (nameProblem !== undefined) return fail(nameProblem);
  const description = fields.get('description');
  if (typeof description !== 'string' || description.trim().length === 0)
    return fail('description is required (Agent Skills)');
  if (description.length > MAX_SKILL_DESCRIPTION_CHARS)
    return fail(`description is over ${MAX_SKILL_DESCRIPTION_CHARS} characters (Agent Skills)`);
  let allowedTools: readonly string[] | null = null;
  if (fields.has('allowed-tools')) {
    const tools = allowedToolsOf(fields.get('allowed-tools'));
    if (typeof tools === 'string') return fail(tools);
    allowedTools = tools;
  }
  const injected = injectionProblem(description, body);
  if (injected !== undefined) return fail(injected);
  return { ok: true, manifest: { name, description: description.trim(), allowedTools, body } };
}

/** The description goes into every opted-in agent's prompt and the body into its turn: both are scanned whole. */
function injectionProblem(description: string, body: string): string | undefined {
  for (const [part, text] of [
    ['description', description],
    ['body', body],
  ] as const) {
    const scan = detectInjection(text, Math.max(text.length, 1));
    if (scan.detected) return `${part} fails the injection detector (${scan.patterns.join(', ')})`;
  }
  return undefined;
}

/**
 * The rule or cap a learned procedure breaks as a skill (the name and description rules, skills.maxBodyChars, the
 * injection detector), or undefined: it comes from the agent's own turns, so it is held to what a folder's skill is.
 */
export function learnedProcedureProblem(
  procedure: { name: string; description: string; body: string },
  caps: Pick<SkillsConfig, 'maxBodyChars'>,
): string | undefined {
  const { name, description, body } = procedure;
  const nameProblem = skillNameProblem(name, name);
  if (nameProblem !== undefined) return nameProblem;
  if (description.trim().length === 0) return 'description is required (Agent Skills)';
  if (description.length > MAX_SKILL_DESCRIPTION_CHARS)
    return `description is over ${MAX_SKILL_DESCRIPTION_CHARS} characters (Agent Skills)`;
  if (body.length > caps.maxBodyChars)
    return `body is ${body.length} characters, over skills.maxBodyChars (${caps.maxBodyChars})`;
  return injectionProblem(description, body);
}
