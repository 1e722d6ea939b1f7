// Graph conditions (`when`) and the evaluation of parsed expressions: own-key path reads, the operator table,
// truthiness, and the define-time check of the names an expression reads.
//
// Truthiness: false, null, 0, NaN, '' and [] are false; every other value is true. `==`/`!=` compare by value
// (deep, no type conversion: 3 == "3" is false); `<`, `<=`, `>`, `>=` take two numbers or two strings.
// A path that does not resolve fails the evaluation naming it (except on the side of && / || that is not read).
import { graphOperandInvalid, graphPathMissing, graphValueTooDeep, isGatewayError } from '../errors.js';
import { parseExpression, pathsOf, pathText, type CompareOperator, type Expr, type PathExpr } from './expression.js';
import { GRAPH_LIMITS } from './limits.js';
import type { TemplateScope } from './types.js';

/** What an expression may name at define time: the declared vars, the node ids, and `item` inside a map's node. */
export interface TemplateNames {
  vars: ReadonlySet<string>;
  nodes: ReadonlySet<string>;
  item: boolean;
}

/** One define-time problem; `path` locates it inside a template tree (tool args), empty for a plain string. */
export interface TemplateIssue {
  path: (string | number)[];
  message: string;
}

/** The issues found and the node ids read (the definition checks those are among the node's needs). */
export interface TemplateCheck {
  issues: TemplateIssue[];
  nodes: Set<string>;
}

const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : value === undefined ? 'nothing' : `a ${typeof value}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

function equal(left: unknown, right: unknown, depth = 0): boolean {
  if (depth > GRAPH_LIMITS.maxValueDepth)
    throw graphValueTooDeep('A compared value', GRAPH_LIMITS.maxValueDepth, 'maxValueDepth');
  if (left === right) return true;
  if (Array.isArray(left) && Array.isArray(right))
    return left.length === right.length && left.every((item, index) => equal(item, right[index], depth + 1));
  if (isRecord(left) && isRecord(right)) {
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    return keys.every((key) => Object.hasOwn(right, key) && equal(left[key], right[key], depth + 1));
  }
  return false;
}

function ordered(operator: CompareOperator, left: unknown, right: unknown): [number, number] | [string, string] {
  if (typeof left === 'number' && typeof right === 'number') return [left, right];
  if (typeof left === 'string' && typeof right === 'string') return [left, right];
  throw graphOperandInvalid(
    operator,
    `compares two numbers or two strings, not ${typeName(left)} and ${typeName(right)}`,
  );
}

/** The comparison operators as data: the parser names them, this table gives their meaning. */
const COMPARE: Record<CompareOperator, (left: unknown, right: unknown) => boolean> = {
  '==': (left, right) => equal(left, right),
  '!=': (left, right) => !equal(left, right),
  '<': (left, right) => {
    const [a, b] = ordered('<', left, right);
    return a < b;
  },
  '<=': (left, right) => {
    const [a, b] = ordered('<=', left, right);
    return a <= b;
  },
  '>': (left, right) => {
    const [a, b] = ordered('>', left, right);
    return a > b;
  },
  '>=': (left, right) => {
    const [a, b] = ordered('>=', left, right);
    return a >= b;
  },
};

function lengthOf(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (isRecord(value)) return Object.keys(value).length;
  throw graphOperandInvalid('length', `takes a string, an array or an object, not ${typeName(value)}`);
}

/** Reads a path with own keys only: an inherited member (toString, length of a string) is missing, never reached. */
export function resolvePath(path: PathExpr, scope: TemplateScope): unknown {
  const { root, segments } = path;
  const missing = (count: number, reason: string) => graphPathMissing(pathText(root, segments.slice(0, count)), reason);
  let value: unknown;
  let from: number;
  if (root === 'item') {
    if (!('item' in scope)) throw missing(0, 'there is no item outside a map');
    value = scope.item;
    from = 0;
  } else if (root === 'vars') {
    const name = segments[0];
    if (typeof name !== 'string') throw missing(1, 'name a var: vars.<name>');
    if (!Object.hasOwn(scope.vars, name)) throw missing(1, `no var '${name}' in this run`);
    value = scope.vars[name];
    from = 1;
  } else {
    const id = segments[0];
    if (typeof id !== 'string' || segments[1] !== 'output') throw missing(2, 'read a node as nodes.<id>.output');
    const node = Object.hasOwn(scope.nodes, id) ? scope.nodes[id] : undefined;
    if (node === undefined) throw missing(1, `node '${id}' has no output yet`);
    value = node.output;
    from = 2;
  }
  for (let index = from; index < segments.length; index++) {
    const segment = segments[index];
    if (Array.isArray(value)) {
      if (typeof segment !== 'number') throw missing(index + 1, 'an array is read by [index]');
      if (segment >= value.length) throw missing(index + 1, `past the end (${value.length} items)`);
      value = value[segment];
    } else if (isRecord(value)) {
      if (typeof segment !== 'string' || !Object.hasOwn(value, segment)) throw missing(index + 1, 'no such key');
      value = value[segment];
    } else {
      throw missing(index + 1, `${typeName(value)} has no keys`);
    }
  }
  return value;
}

/** The value of a parsed expression in a scope. */
export function evaluate(expression: Expr, scope: TemplateScope): unknown {
  switch (expression.kind) {
    case 'literal':
      return expression.value;
    case 'path':
      return resolvePath(expression, scope);
    case 'not':
      return !truthy(evaluate(expression.operand, scope));
    case 'length':
      return lengthOf(evaluate(expression.operand, scope));
    case 'compare':
      return COMPARE[expression.operator](evaluate(expression.left, scope), evaluate(expression.right, scope));
    case 'logical': {
      const left = truthy(evaluate(expression.left, scope));
      if (expression.operator === '&&' ? !left : left) return left;
      return truthy(evaluate(expression.right, scope));
    }
  }
}

/** A `when` condition: the truthiness of its expression (a bare expression, no `{{ }}`). */
export function evaluateCondition(expression: string, scope: TemplateScope): boolean {
  return truthy(evaluate(parseExpression(expression), scope));
}

/** Messages for the paths of an expression that name what the definition lacks; adds the node ids read to `nodes`. */
export function checkNames(expression: Expr, names: TemplateNames, nodes: Set<string>): string[] {
  const messages: string[] = [];
  for (const path of pathsOf(expression)) {
    const [first, second] = path.segments;
    const written = pathText(path.root, path.segments);
    if (path.root === 'item') {
      if (!names.item) messages.push(`${written}: item is defined only inside a map's node`);
    } else if (path.root === 'vars') {
      if (typeof first !== 'string') messages.push(`${written}: name a var, vars.<name>`);
      else if (!names.vars.has(first)) messages.push(`${written}: unknown var '${first}'`);
    } else if (typeof first !== 'string' || second !== 'output') {
      messages.push(`${written}: read a node as nodes.<id>.output`);
    } else if (!names.nodes.has(first)) {
      messages.push(`${written}: unknown node '${first}'`);
    } else {
      nodes.add(first);
    }
  }
  return messages;
}

/** Parses a condition and checks its names, without evaluating it. */
export function checkCondition(expression: string, names: TemplateNames): TemplateCheck {
  const nodes = new Set<string>();
  try {
    const messages = checkNames(parseExpression(expression), names, nodes);
    return { issues: messages.map((message) => ({ path: [], message })), nodes };
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    return { issues: [{ path: [], message: error.message }], nodes };
  }
}
