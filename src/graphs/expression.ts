// The graph expression language: a hand-written tokenizer and recursive-descent parser into a small tree (no eval).
//
//   expression := or
//   or         := and ('||' and)*
//   and        := compare ('&&' compare)*
//   compare    := unary (('==' | '!=' | '<' | '<=' | '>' | '>=') unary)?
//   unary      := '!' unary | primary
//   primary    := literal | path | 'length' '(' expression ')' | '(' expression ')'
//   path       := ('vars' | 'nodes' | 'item') ('.' name | '[' integer ']' | '[' string ']')*
//   literal    := number | 'text' | "text" | true | false | null
import { graphExpressionInvalid, type GatewayError } from '../errors.js';
import { GRAPH_LIMITS } from './limits.js';

export const COMPARE_OPERATORS = ['==', '!=', '<', '<=', '>', '>='] as const;
export type CompareOperator = (typeof COMPARE_OPERATORS)[number];

export const PATH_ROOTS = ['vars', 'nodes', 'item'] as const;
export type PathRoot = (typeof PATH_ROOTS)[number];

/** Keys no path may name: reading them would reach an object's prototype or constructor. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export type Segment = string | number;

export type Expr =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'path'; root: PathRoot; segments: Segment[] }
  | { kind: 'not'; operand: Expr }
  | { kind: 'compare'; operator: CompareOperator; left: Expr; right: Expr }
  | { kind: 'logical'; operator: '&&' | '||'; left: Expr; right: Expr }
  | { kind: 'length'; operand: Expr };

export type PathExpr = Extract<Expr, { kind: 'path' }>;

type Token =
  | { kind: 'punct'; text: string; at: number }
  | { kind: 'name'; text: string; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'end'; at: number };

/** Two-character operators first, so `<=` is never read as `<` then `=`. */
const PUNCTUATION = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '.', '[', ']'];
const NAME = /[A-Za-z_][A-Za-z0-9_-]*/y;
const NUMBER = /-?\d+(?:\.\d+)?/y;

/** `vars.a.b[0]["odd key"]`: how error messages name a path, as it was written. */
export function pathText(root: PathRoot, segments: readonly Segment[]): string {
  let text: string = root;
  for (const segment of segments) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += NAME_ONLY.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
  }
  return text;
}
const NAME_ONLY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function tokenize(source: string, invalid: (reason: string) => GatewayError): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const char = source[at] ?? '';
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    if (char === "'" || char === '"') {
      let value = '';
      let end = at + 1;
      while (end < source.length && source[end] !== char) {
        if (source[end] === '\\') end++;
        value += source[end] ?? '';
        end++;
      }
      if (end >= source.length) throw invalid(`the string at ${at} is not closed`);
      tokens.push({ kind: 'string', value, at });
      at = end + 1;
      continue;
    }
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(source);
    if (number !== null) {
      tokens.push({ kind: 'number', value: Number(number[0]), at });
      at += number[0].length;
      continue;
    }
    NAME.lastIndex = at;
    const name = NAME.exec(source);
    if (name !== null) {
      tokens.push({ kind: 'name', text: name[0], at });
      at += name[0].length;
      continue;
    }
    const punct = PUNCTUATION.find((candidate) => source.startsWith(candidate, at));
    if (punct === undefined) {
      if (source.startsWith('{{', at)) throw invalid("'{{' is for templates; write a condition without braces");
      throw invalid(`unexpected '${char}' at ${at}`);
    }
    tokens.push({ kind: 'punct', text: punct, at });
    at += punct.length;
  }
  tokens.push({ kind: 'end', at });
  return tokens;
}

/** Parses one expression; throws graphExpressionInvalid (naming the expression) when it is not in the grammar above. */
export function parseExpression(source: string): Expr {
  const shown = source.length > 80 ? `${source.slice(0, 77)}...` : source;
  const invalid = (reason: string): GatewayError => graphExpressionInvalid(shown, reason);
  if (source.length > GRAPH_LIMITS.maxExpressionChars)
    throw invalid(
      `${source.length} characters is too long (GRAPH_LIMITS.maxExpressionChars ${GRAPH_LIMITS.maxExpressionChars})`,
    );
  const tokens = tokenize(source, invalid);
  let position = 0;
  let depth = 0;

  const peek = (): Token => tokens[position] ?? { kind: 'end', at: source.length };
  const isPunct = (text: string): boolean => {
    const token = peek();
    return token.kind === 'punct' && token.text === text;
  };
  const describe = (token: Token): string =>
    token.kind === 'end'
      ? 'the end'
      : `'${token.kind === 'punct' || token.kind === 'name' ? token.text : String(token.value)}' at ${token.at}`;
  const expect = (text: string): void => {
    if (!isPunct(text)) throw invalid(`expected '${text}', found ${describe(peek())}`);
    position++;
  };
  const nested = <T>(parse: () => T): T => {
    depth++;
    if (depth > GRAPH_LIMITS.maxDepth)
      throw invalid(`nested deeper than ${GRAPH_LIMITS.maxDepth} (GRAPH_LIMITS.maxDepth)`);
    try {
      return parse();
    } finally {
      depth--;
    }
  };

  const parseOr = (): Expr => {
    let left = parseAnd();
    while (isPunct('||')) {
      position++;
      left = { kind: 'logical', operator: '||', left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): Expr => {
    let left = parseCompare();
    while (isPunct('&&')) {
      position++;
      left = { kind: 'logical', operator: '&&', left, right: parseCompare() };
    }
    return left;
  };
  const compareOperator = (): CompareOperator | undefined => {
    const token = peek();
    return token.kind === 'punct' ? COMPARE_OPERATORS.find((operator) => operator === token.text) : undefined;
  };
  const parseCompare = (): Expr => {
    const left = parseUnary();
    const operator = compareOperator();
    if (operator === undefined) return left;
    position++;
    const right = parseUnary();
    if (compareOperator() !== undefined) throw invalid('comparisons do not chain; join them with && or ||');
    return { kind: 'compare', operator, left, right };
  };
  const parseUnary = (): Expr => {
    if (!isPunct('!')) return parsePrimary();
    position++;
    return nested(() => ({ kind: 'not', operand: parseUnary() }));
  };
  const parsePrimary = (): Expr => {
    const token = peek();
    if (token.kind === 'number' || token.kind === 'string') {
      position++;
      return { kind: 'literal', value: token.value };
    }
    if (token.kind === 'punct' && token.text === '(') {
      position++;
      const inner = nested(parseOr);
      expect(')');
      return inner;
    }
    if (token.kind !== 'name') throw invalid(`expected a value, found ${describe(token)}`);
    position++;
    if (token.text === 'true' || token.text === 'false') return { kind: 'literal', value: token.text === 'true' };
    if (token.text === 'null') return { kind: 'literal', value: null };
    if (isPunct('(')) {
      if (token.text !== 'length') throw invalid(`unknown function '${token.text}'; the only function is length(x)`);
      position++;
      const operand = nested(parseOr);
      expect(')');
      return { kind: 'length', operand };
    }
    const root = PATH_ROOTS.find((candidate) => candidate === token.text);
    if (root === undefined) throw invalid(`unknown name '${token.text}'; a path starts with vars., nodes. or item`);
    return parsePath(root);
  };
  const parsePath = (root: PathRoot): Expr => {
    const segments: Segment[] = [];
    for (;;) {
      if (isPunct('.')) {
        position++;
        const name = peek();
        if (name.kind !== 'name') throw invalid(`expected a key after '.', found ${describe(name)}`);
        position++;
        segments.push(name.text);
      } else if (isPunct('[')) {
        position++;
        const key = peek();
        if (key.kind === 'number' && Number.isSafeInteger(key.value) && key.value >= 0) segments.push(key.value);
        else if (key.kind === 'string') segments.push(key.value);
        else throw invalid(`expected an index or a quoted key inside [ ], found ${describe(key)}`);
        position++;
        expect(']');
      } else break;
      const last = segments[segments.length - 1];
      if (typeof last === 'string' && FORBIDDEN_KEYS.has(last))
        throw invalid(`'${last}' may not be read (${pathText(root, segments)})`);
    }
    return { kind: 'path', root, segments };
  };

  if (peek().kind === 'end') throw invalid('the expression is empty');
  const expression = parseOr();
  if (peek().kind !== 'end') throw invalid(`expected the end, found ${describe(peek())}`);
  return expression;
}

/** Every path an expression reads, left to right. */
export function pathsOf(expression: Expr): PathExpr[] {
  switch (expression.kind) {
    case 'literal':
      return [];
    case 'path':
      return [expression];
    case 'not':
    case 'length':
      return pathsOf(expression.operand);
    case 'compare':
    case 'logical':
      return [...pathsOf(expression.left), ...pathsOf(expression.right)];
  }
}
