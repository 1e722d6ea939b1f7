// Graph definitions at define time: size and depth before parsing, the strict schema, then ids, needs, cycles,
// agents and tools (through the DefinitionContext), templates and conditions — every refusal naming its path.
import { z } from 'zod';
import { bracketPath, readIssues } from '../errors.js';
import { checkCondition, type TemplateCheck } from './condition.js';
import { GRAPH_LIMITS } from './limits.js';
import { graphNodeSchema, nodeTypeOf, NODE_TYPES, pathNameSchema, type NodeTypeEntry } from './node-types.js';
import { checkTemplate } from './template.js';
import {
  GRAPH_VAR_TYPES,
  type DefinitionContext,
  type DefinitionIssue,
  type DefinitionResult,
  type GraphDefinition,
  type GraphVarType,
} from './types.js';

type Path = (string | number)[];

/** Graph names are addressed by methods and tools; letters, digits, `_`, `-` and `.`, starting with a letter or digit. */
const GRAPH_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const MAX_GRAPH_NAME_CHARS = 64;

const definitionSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(MAX_GRAPH_NAME_CHARS)
    .regex(GRAPH_NAME, 'letters, digits, _, - and ., starting with a letter or digit'),
  description: z.string().max(GRAPH_LIMITS.maxDescriptionChars).optional(),
  vars: z
    .record(pathNameSchema, z.strictObject({ type: z.enum(GRAPH_VAR_TYPES), default: z.unknown().optional() }))
    .refine((vars) => Object.keys(vars).length <= GRAPH_LIMITS.maxVars, `at most ${GRAPH_LIMITS.maxVars} vars`)
    .default({}),
  nodes: z.array(graphNodeSchema).min(1).max(GRAPH_LIMITS.maxNodes),
  output: z.string().min(1).max(GRAPH_LIMITS.maxTemplateChars).optional(),
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a var default has its declared type. */
const VAR_TYPE_CHECKS: Record<GraphVarType, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
  array: (value) => Array.isArray(value),
  object: isRecord,
};

/**
 * Walks the input before zod sees it, refusing (at the path where it happens) JSON over maxDefinitionBytes, nested
 * deeper than maxDepth, or holding a `__proto__` key; the walk stops there, so no size of input costs more.
 */
function screen(input: unknown): DefinitionIssue | undefined {
  let bytes = 0;
  const over = (path: Path): DefinitionIssue | undefined =>
    bytes > GRAPH_LIMITS.maxDefinitionBytes
      ? {
          path: bracketPath(path),
          message: `the definition is over ${GRAPH_LIMITS.maxDefinitionBytes} bytes (GRAPH_LIMITS.maxDefinitionBytes) here`,
        }
      : undefined;
  const walk = (value: unknown, path: Path): DefinitionIssue | undefined => {
    if (path.length > GRAPH_LIMITS.maxDepth)
      return {
        path: bracketPath(path),
        message: `nested deeper than ${GRAPH_LIMITS.maxDepth} levels (GRAPH_LIMITS.maxDepth)`,
      };
    if (typeof value === 'string') {
      bytes += Buffer.byteLength(value) + 2;
      return over(path);
    }
    if (Array.isArray(value)) {
      bytes += 1 + value.length;
      const found = over(path);
      if (found !== undefined) return found;
      for (let index = 0; index < value.length; index++) {
        const inner = walk(value[index], [...path, index]);
        if (inner !== undefined) return inner;
      }
      return undefined;
    }
    if (isRecord(value)) {
      for (const key of Object.keys(value)) {
        if (key === '__proto__')
          return { path: bracketPath([...path, key]), message: 'the key __proto__ is not allowed' };
        bytes += Buffer.byteLength(key) + 3;
        const inner = over(path) ?? walk(value[key], [...path, key]);
        if (inner !== undefined) return inner;
      }
      return undefined;
    }
    bytes += String(value).length;
    return over(path);
  };
  return walk(input, []);
}

function zodIssues(issues: readonly z.core.$ZodIssue[]): DefinitionIssue[] {
  return readIssues(issues).map((issue) => ({
    path: bracketPath(issue.path),
    message:
      issue.problem === 'unknown_key'
        ? 'unknown key'
        : issue.problem === 'missing'
          ? `required (${issue.reason})`
          : issue.reason,
  }));
}

/** The checks that need the whole parsed definition: vars, ids, needs and cycles, references, templates. */
function structuralIssues(definition: GraphDefinition, context: DefinitionContext): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  const add = (path: Path, message: string) => issues.push({ path: bracketPath(path), message });

  for (const [name, spec] of Object.entries(definition.vars))
    if (spec.default !== undefined && !VAR_TYPE_CHECKS[spec.type](spec.default))
      add(['vars', name, 'default'], `expected a ${spec.type}, as the var's type says`);

  const indexOf = new Map<string, number>();
  definition.nodes.forEach((node, index) => {
    const first = indexOf.get(node.id);
    if (first === undefined) indexOf.set(node.id, index);
    else add(['nodes', index, 'id'], `duplicate id '${node.id}' (also nodes[${first}])`);
  });
  definition.nodes.forEach((node, index) =>
    node.needs.forEach((need, at) => {
      if (!indexOf.has(need)) add(['nodes', index, 'needs', at], `unknown node '${need}'`);
    }),
  );

  // Depth-first over the needs; meeting a node still on the stack closes a cycle, named from that node round.
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (index: number): void => {
    const node = definition.nodes[index];
    if (node === undefined) return;
    state.set(node.id, 'visiting');
    stack.push(node.id);
    node.needs.forEach((need, at) => {
      const needed = indexOf.get(need);
      if (needed === undefined) return;
      const seen = state.get(need);
      if (seen === 'visiting') {
        const cycle = [...stack.slice(stack.indexOf(need)), need].join(' → ');
        add(['nodes', index, 'needs', at], `cycle: ${cycle} (each needs the next)`);
      } else if (seen === undefined) visit(needed);
    });
    stack.pop();
    state.set(node.id, 'done');
  };
  definition.nodes.forEach((node, index) => {
    if (!state.has(node.id)) visit(index);
  });

  const ancestorsOf = (index: number): Set<string> => {
    const seen = new Set<string>();
    const todo = [...(definition.nodes[index]?.needs ?? [])];
    for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
      if (seen.has(id)) continue;
      seen.add(id);
      const needed = indexOf.get(id);
      if (needed !== undefined) todo.push(...(definition.nodes[needed]?.needs ?? []));
    }
    return seen;
  };

  const vars = new Set(Object.keys(definition.vars));
  const ids = new Set(indexOf.keys());
  const report = (check: TemplateCheck, path: Path, ancestors: ReadonlySet<string> | undefined) => {
    for (const issue of check.issues) add([...path, ...issue.path], issue.message);
    if (ancestors !== undefined)
      for (const id of check.nodes)
        if (!ancestors.has(id))
          add(path, `reads nodes.${id}.output but '${id}' is not among its needs (directly or through theirs)`);
  };
  const checkFields = (
    fields: Record<string, unknown>,
    entry: NodeTypeEntry,
    path: Path,
    item: boolean,
    ancestors: ReadonlySet<string>,
  ): void => {
    const names = { vars, nodes: ids, item };
    const agent = entry.agentField === undefined ? undefined : fields[entry.agentField];
    if (entry.agentField !== undefined && typeof agent === 'string' && !context.hasAgent(agent))
      add([...path, entry.agentField], context.outOfReach?.('agent', agent) ?? `unknown agent '${agent}'`);
    const tool = entry.toolField === undefined ? undefined : fields[entry.toolField];
    if (entry.toolField !== undefined && typeof tool === 'string' && !context.hasTool(tool))
      add([...path, entry.toolField], context.outOfReach?.('tool', tool) ?? `unknown tool '${tool}'`);
    for (const field of entry.templateFields)
      if (fields[field] !== undefined) report(checkTemplate(fields[field], names), [...path, field], ancestors);
    const when = fields['when'];
    if (typeof when === 'string') report(checkCondition(when, names), [...path, 'when'], ancestors);
    const sub = entry.subNodeField === undefined ? undefined : fields[entry.subNodeField];
    const subEntry = isRecord(sub) ? nodeTypeOf(sub['type']) : undefined;
    if (entry.subNodeField !== undefined && isRecord(sub) && subEntry !== undefined)
      checkFields(sub, subEntry, [...path, entry.subNodeField], true, ancestors);
  };
  definition.nodes.forEach((node, index) => {
    const fields: Record<string, unknown> = { ...node };
    checkFields(fields, NODE_TYPES[node.type], ['nodes', index], false, ancestorsOf(index));
  });
  if (definition.output !== undefined)
    report(checkTemplate(definition.output, { vars, nodes: ids, item: false }), ['output'], undefined);
  return issues;
}

/**
 * Checks a definition as graph.define and pipeline_define receive it: every refusal is an issue naming its path
 * ("nodes[2].needs[0]"), at most GRAPH_LIMITS.maxDefinitionIssues of them; nothing about the input is trusted.
 */
export function validateDefinition(input: unknown, context: DefinitionContext): DefinitionResult {
  const screened = screen(input);
  if (screened !== undefined) return { ok: false, issues: [screened] };
  const parsed = definitionSchema.safeParse(input);
  const issues = parsed.success ? structuralIssues(parsed.data, context) : zodIssues(parsed.error.issues);
  if (parsed.success && issues.length === 0) return { ok: true, definition: parsed.data };
  return { ok: false, issues: issues.slice(0, GRAPH_LIMITS.maxDefinitionIssues) };
}
