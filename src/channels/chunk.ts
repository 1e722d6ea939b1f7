// Splits a reply into messages a platform accepts: at paragraph, then line, then word boundaries, never inside a
// surrogate pair (a chunk never ends with half of an emoji).

/** Where to cut `text` (at most `max` UTF-16 units), preferring the latest paragraph, line, then word break. */
function cutPoint(text: string, max: number): number {
  const window = text.slice(0, max + 1);
  for (const separator of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(separator, max);
    // A break in the first half would leave tiny chunks; a hard cut wastes less.
    if (at > max / 2 && at <= max) return at;
  }
  const high = text.charCodeAt(max - 1);
  // Cutting after a high surrogate would split the pair it starts.
  return high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
}

/** `text` as chunks of at most `max` characters (UTF-16 units); breaks the cut falls on are dropped, not repeated. */
export function chunkText(text: string, max: number): string[] {
  if (max < 2) throw new RangeError('chunkText needs room for at least one surrogate pair');
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const at = cutPoint(rest, max);
    const chunk = rest.slice(0, at).trimEnd();
    if (chunk.length > 0) chunks.push(chunk);
    rest = rest.slice(at).replace(/^\s+/, '');
  }
  if (rest.trim().length > 0 || chunks.length === 0) chunks.push(rest);
  return chunks;
}
