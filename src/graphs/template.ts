// Graph templates: text with `{{ expression }}` placeholders, or a tree of such strings (tool args), rendered against
// a run's vars, node outputs and map item, bounded in input, nesting and output size.
//
// A string that is exactly one placeholder ("{{nodes.a.output.items}}") yields the value itself (an array stays an
// array); any other string yields text, each value written as itself if a string, else as JSON. An expression ends
// at the first `}}`; a literal `{{` is written `{{ '{{' }}`. Inside a tree only string leaves are templates; keys,
// numbers, booleans and null stay as they are.
import { graphExpressionInvalid, graphTemplateTooLarge, graphValueTooDeep, isGatewayError } from '../errors.js';
import { checkNames, evaluate, type TemplateCheck, type TemplateIssue, type TemplateNames } from './condition.js';
import { parseExpression, type Expr } from './expression.js';
import { GRAPH_LIMITS } from './limits.js';
import type { TemplateScope } from './types.js';

type Part = { kind: 'text'; text: string } | { kind: 'expression'; expression: Expr };

const OPEN = '{{';
const CLOSE = '}}';

/** Splits a template string into text and parsed expressions; throws graphExpressionInvalid naming the template. */
export function parseTemplate(template: string): Part[] {
  const shown = template.length > 80 ? `${template.slice(0, 77)}...` : template;
  if (template.length > GRAPH_LIMITS.maxTemplateChars)
    throw graphExpressionInvalid(
      shown,
      `${template.length} characters is too long (GRAPH_LIMITS.maxTemplateChars ${GRAPH_LIMITS.maxTemplateChars})`,
    );
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf(OPEN, at);
    if (open === -1) {
      parts.push({ kind: 'text', text: template.slice(at) });
      break;
    }
    if (open > at) parts.push({ kind: 'text', text: template.slice(at, open) });
    const close = template.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) throw graphExpressionInvalid(shown, `the '{{' at ${open} has no closing '}}'`);
    parts.push({ kind: 'expression', expression: parseExpression(template.slice(open + OPEN.length, close)) });
    at = close + CLOSE.length;
  }
  return parts;
}

/** Output characters left to a render; every string and value written is taken from it. */
interface Budget {
  remaining: number;
}

function spend(budget: Budget, chars: number): void {
  budget.remaining -= chars;
  if (budget.remaining < 0) throw graphTemplateTooLarge(GRAPH_LIMITS.maxTemplateOutputChars);
}

/** Charges a value's JSON size (quotes and separators counted, escapes not) and refuses one nested too deep. */
function charge(value: unknown, budget: Budget, depth: number): void {
  if (depth > GRAPH_LIMITS.maxValueDepth)
    throw graphValueTooDeep('A value a template reads', GRAPH_LIMITS.maxValueDepth, 'maxValueDepth');
  if (typeof value === 'string') return spend(budget, value.length + 2);
  if (Array.isArray(value)) {
    spend(budget, 1 + value.length);
    for (const item of value) charge(item, budget, depth + 1);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    spend(budget, 1 + entries.length);
    for (const [key, item] of entries) {
      spend(budget, key.length + 3);
      charge(item, budget, depth + 1);
    }
    return;
  }
  spend(budget, String(value).length);
}

function renderString(template: string, scope: TemplateScope, budget: Budget): unknown {
  const parts = parseTemplate(template);
  const [only] = parts;
  if (parts.length === 1 && only?.kind === 'expression') {
    const value = evaluate(only.expression, scope);
    if (typeof value === 'string') spend(budget, value.length);
    else charge(value, budget, 0);
    return value;
  }
  let text = '';
  for (const part of parts) {
    let written: string;
    if (part.kind === 'text') written = part.text;
    else {
      const value = evaluate(part.expression, scope);
      if (typeof value === 'string') written = value;
      else if (value === undefined) written = '';
      else {
        charge(value, { remaining: budget.remaining }, 0);
        written = JSON.stringify(value);
      }
    }
    spend(budget, written.length);
    text += written;
  }
  return text;
}

const tooDeep = () => graphValueTooDeep('A template tree', GRAPH_LIMITS.maxDepth, 'maxDepth');

function renderTree(template: unknown, scope: TemplateScope, budget: Budget, depth: number): unknown {
  if (depth > GRAPH_LIMITS.maxDepth) throw tooDeep();
  if (typeof template === 'string') return renderString(template, scope, budget);
  if (Array.isArray(template)) return template.map((item) => renderTree(item, scope, budget, depth + 1));
  if (typeof template === 'object' && template !== null)
    // fromEntries defines own keys, so a "__proto__" key stays a key and never sets a prototype.
    return Object.fromEntries(
      Object.entries(template).map(([key, item]) => [key, renderTree(item, scope, budget, depth + 1)]),
    );
  return template;
}

/**
 * Renders a template string or tree. Throws graphExpressionInvalid (does not parse), graphPathMissing (a path
 * that does not resolve in this scope), graphTemplateTooLarge (over GRAPH_LIMITS.maxTemplateOutputChars in all).
 */
export function renderTemplate(template: unknown, scope: TemplateScope): unknown {
  return renderTree(template, scope, { remaining: GRAPH_LIMITS.maxTemplateOutputChars }, 0);
}

/** Checks every string of a template tree at define time: it parses and names only what `names` holds. */
export function checkTemplate(template: unknown, names: TemplateNames): TemplateCheck {
  const issues: TemplateIssue[] = [];
  const nodes = new Set<string>();
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (path.length > GRAPH_LIMITS.maxDepth) {
      issues.push({ path, message: tooDeep().message });
      return;
    }
    if (typeof value === 'string') {
      try {
        for (const part of parseTemplate(value))
          if (part.kind === 'expression')
            for (const message of checkNames(part.expression, names, nodes)) issues.push({ path, message });
      } catch (error) {
        if (!isGatewayError(error)) throw error;
        issues.push({ path, message: error.message });
      }
    } else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index]));
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(template, []);
  return { issues, nodes };
}
