// One config section edited as YAML text: parsed with the yaml Document API (errors name their line), its refusals
// pointed at the line of the key they name, and the text shown for editing with secret values as "***".
import { isDeepStrictEqual } from 'node:util';
import { Document, isNode, LineCounter, parseDocument } from 'yaml';
import { forbiddenKey, GatewayError } from '../errors.js';
import { syncNode } from './config-edit.js';
import { findForbiddenKey } from './object-keys.js';
import { redactSecrets } from './redact.js';
import { sectionBodyText } from './section-splice.js';

/** How deep a section's YAML may nest, in levels: as deep as a JSON-RPC body may (aliases can make it circular). */
const SECTION_YAML_MAX_DEPTH = 64;

function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: { node: unknown; depth: number }[] = [{ node: value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.node !== 'object' || next.node === null) continue;
    if (next.depth >= limit) return true;
    for (const child of Object.values(next.node)) pending.push({ node: child, depth: next.depth + 1 });
  }
  return false;
}

export interface ParsedSectionYaml {
  /** The section's value as the text gives it. */
  value: unknown;
  /** The 1-based line of the node at a dotted or bracketed path inside the section, when it is there. */
  lineOf(path: readonly (string | number)[]): number | undefined;
}

/** Parses one section's YAML text; a syntax error is invalid_params naming `yaml` and its line. */
export function parseSectionYaml(text: string): ParsedSectionYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem !== undefined) {
    const line = problem.linePos?.[0].line ?? lineCounter.linePos(problem.pos[0]).line;
    const reason = problem.message.split('\n')[0] ?? problem.code;
    throw new GatewayError('invalid_params', `Invalid YAML at line ${line}: ${reason}`, { param: 'yaml' });
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    // Too many aliases, a merge of a non-map: the parser's own refusal, still without a line of its own.
    throw new GatewayError('invalid_params', `Invalid YAML: ${error instanceof Error ? error.message : 'unreadable'}`, {
      param: 'yaml',
    });
  }
  if (nestsDeeperThan(value, SECTION_YAML_MAX_DEPTH))
    throw new GatewayError('invalid_params', `yaml: nests deeper than ${SECTION_YAML_MAX_DEPTH} levels`, {
      param: 'yaml',
    });
  const found = findForbiddenKey(value);
  if (found !== undefined) throw forbiddenKey(found.segments.join('.'), found.key, 'yaml');
  return {
    value: value ?? null,
    lineOf(path) {
      for (let length = path.length; length >= 0; length -= 1) {
        const node: unknown = length === 0 ? doc.contents : doc.getIn(path.slice(0, length), true);
        if (isNode(node) && node.range !== undefined && node.range !== null)
          return lineCounter.linePos(node.range[0]).line;
      }
      return undefined;
    },
  };
}

/** `agents[0].model` or `agents.0.model` → ['agents', 0, 'model']. */
export function pathSegments(param: string): (string | number)[] {
  return (param.match(/[^.[\]]+/g) ?? []).map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/**
 * The refusal of a section's edit with the line its first problem's key sits on in the user's text (when the problem
 * is inside that section): `Invalid config: obs.retentionDays: … (line 2)`.
 */
export function withLine(error: unknown, section: string, parsed: ParsedSectionYaml): unknown {
  if (!(error instanceof GatewayError) || error.kind !== 'invalid_params') return error;
  const { param } = error.details;
  if (typeof param !== 'string') return error;
  const [first, ...inside] = pathSegments(param);
  if (first !== section) return error;
  const line = parsed.lineOf(inside);
  if (line === undefined) return error;
  return new GatewayError('invalid_params', `${error.message} (line ${line})`, error.details);
}

/**
 * A section's YAML as the user edits it: its text in the file (comments and layout kept) when it reads back as the
 * stored value with no secret in it; otherwise that text with the secret values set to "***" (comments kept), or the
 * value rendered afresh.
 */
export function sectionYamlText(fileText: string | undefined, section: string, value: unknown): string {
  const shown: unknown = Reflect.get(redactSecrets({ [section]: value }), section);
  const body = fileText === undefined ? undefined : sectionBodyText(fileText, section, value);
  if (body === undefined) return value === undefined ? '' : new Document(shown).toString();
  if (isDeepStrictEqual(shown, value)) return body;
  return yamlTextAs(body, shown);
}

/** `text` changed to hold `value` touching only the nodes that differ, so its comments stay. */
export function yamlTextAs(text: string, value: unknown): string {
  const doc: Document = parseDocument(text);
  const node = syncNode(doc, doc.contents, value);
  doc.contents = isNode(node) ? node : doc.createNode(value);
  return doc.toString();
}
