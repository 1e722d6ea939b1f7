// Which tool calls of an agent need an operator's approval: its `requireApproval` rules matched against one call.
import type { ApprovalRule } from '../config/index.js';

/** `*` matches any run of characters; everything else is literal; the whole value must match. */
function globMatches(pattern: string, value: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (parts.length === 1) return value === pattern;
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last)) return false;
  let cursor = first.length;
  const end = value.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, cursor);
    if (found === -1 || found + middle.length > end) return false;
    cursor = found + middle.length;
  }
  return true;
}

function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

function matchesRule(rule: ApprovalRule, toolName: string, input: unknown): boolean {
  if (typeof rule === 'string') return rule === toolName;
  if (rule.tool !== toolName) return false;
  if (rule.args === undefined) return true;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const args = new Map(Object.entries(input));
  return Object.entries(rule.args).every(
    ([name, pattern]) => args.has(name) && globMatches(pattern, argumentText(args.get(name))),
  );
}

/** Whether any rule gates this call. */
export function requiresApproval(rules: readonly ApprovalRule[], toolName: string, input: unknown): boolean {
  return rules.some((rule) => matchesRule(rule, toolName, input));
}
