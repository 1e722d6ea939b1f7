// The agent message built from a webhook event: its data rendered as JSON within gateway.webhook.maxMessageChars.

interface Frame {
  /** Object keys, or undefined for an array. */
  keys: string[] | undefined;
  values: unknown[];
  next: number;
  depth: number;
}

/**
 * JSON.stringify(value, null, indent) for a parsed JSON value, or undefined as soon as the text would pass
 * `maxChars`: the work and memory stay about `maxChars` whatever the input, where plain JSON.stringify builds the
 * whole text first (indentation grows with depth, so 6 KB of nested arrays pretty-prints to millions of
 * characters). Iterative, so deep nesting cannot overflow the stack.
 */
export function renderJsonWithin(value: unknown, indent: number, maxChars: number): string | undefined {
  const parts: string[] = [];
  let length = 0;
  const emit = (text: string): boolean => {
    length += text.length;
    if (length > maxChars) return false;
    parts.push(text);
    return true;
  };
  const lineBreak = (depth: number): string => (indent === 0 ? '' : `\n${' '.repeat(indent * depth)}`);
  const colon = indent === 0 ? ':' : ': ';
  const stack: Frame[] = [];

  const open = (node: unknown, depth: number): boolean => {
    if (typeof node !== 'object' || node === null) return emit(JSON.stringify(node) ?? 'null');
    if (Array.isArray(node)) {
      if (node.length === 0) return emit('[]');
      stack.push({ keys: undefined, values: node, next: 0, depth });
      return emit('[');
    }
    const entries = Object.entries(node);
    if (entries.length === 0) return emit('{}');
    stack.push({ keys: entries.map(([key]) => key), values: entries.map(([, entry]) => entry), next: 0, depth });
    return emit('{');
  };

  if (!open(value, 0)) return undefined;
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    if (frame.next === frame.values.length) {
      stack.pop();
      if (!emit(`${lineBreak(frame.depth)}${frame.keys === undefined ? ']' : '}'}`)) return undefined;
      continue;
    }
    const index = frame.next;
    frame.next += 1;
    const key = frame.keys?.[index];
    const prefix = `${index > 0 ? ',' : ''}${lineBreak(frame.depth + 1)}${key === undefined ? '' : `${JSON.stringify(key)}${colon}`}`;
    if (!emit(prefix) || !open(frame.values[index], frame.depth + 1)) return undefined;
  }
  return parts.join('');
}

/**
 * What the agent reads: the event name, its source, and its data as JSON, in at most `maxChars` characters.
 * Data is pretty-printed when that fits and written compact when only that fits. Undefined when even compact
 * JSON is too long: the route then refuses the delivery (413) rather than cutting it, because a cut JSON document
 * reads as a different event to the agent, while a refusal tells the sender at once and nothing half-done runs.
 */
export function webhookMessage(
  event: { event: string; source?: string | undefined; data?: unknown },
  maxChars: number,
): string | undefined {
  const head = `Webhook event "${event.event}" from ${event.source ?? 'an external system'}.\nData (JSON):\n`;
  const budget = maxChars - head.length;
  if (budget <= 0) return undefined;
  const data = event.data ?? null;
  const rendered = renderJsonWithin(data, 2, budget) ?? renderJsonWithin(data, 0, budget);
  return rendered === undefined ? undefined : head + rendered;
}
