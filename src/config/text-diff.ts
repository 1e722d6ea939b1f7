// A unified diff of two texts, line by line (longest common subsequence), in the shape `git diff` prints: what
// config.diff answers for revisions held in the database.

/** Lines of context around each change, as git's default. */
const CONTEXT_LINES = 3;
/** Above this many line pairs the whole old text is shown removed and the new one added, rather than aligned. */
const MAX_ALIGNED_PAIRS = 4_000_000;

type Op = { kind: ' ' | '-' | '+'; line: string };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function align(before: readonly string[], after: readonly string[]): Op[] {
  const rows = before.length;
  const cols = after.length;
  if (rows * cols > MAX_ALIGNED_PAIRS)
    return [
      ...before.map((line) => ({ kind: '-' as const, line })),
      ...after.map((line) => ({ kind: '+' as const, line })),
    ];
  // common[i * (cols + 1) + j]: length of the longest common subsequence of before[i..] and after[j..].
  const width = cols + 1;
  const common = new Uint32Array((rows + 1) * width);
  for (let i = rows - 1; i >= 0; i -= 1) {
    for (let j = cols - 1; j >= 0; j -= 1) {
      common[i * width + j] =
        before[i] === after[j]
          ? (common[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(common[(i + 1) * width + j] ?? 0, common[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < cols) {
    if (i < rows && j < cols && before[i] === after[j]) {
      ops.push({ kind: ' ', line: before[i] ?? '' });
      i += 1;
      j += 1;
    } else if (i < rows && (j === cols || (common[(i + 1) * width + j] ?? 0) >= (common[i * width + j + 1] ?? 0))) {
      // Removals before additions on a tie, as git prints a changed line.
      ops.push({ kind: '-', line: before[i] ?? '' });
      i += 1;
    } else {
      ops.push({ kind: '+', line: after[j] ?? '' });
      j += 1;
    }
  }
  return ops;
}

/** `--- a/<name>` / `+++ b/<name>` and `@@` hunks; empty when the texts are equal. */
export function unifiedDiff(beforeText: string, afterText: string, name: string): string {
  const ops = align(splitLines(beforeText), splitLines(afterText));
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  if (changed.length === 0) return '';
  const out = [`--- ${beforeText === '' ? '/dev/null' : `a/${name}`}`, `+++ b/${name}`];
  let start = 0;
  while (start < changed.length) {
    let end = start;
    // Changes closer than twice the context share one hunk.
    while (end + 1 < changed.length && (changed[end + 1] ?? 0) - (changed[end] ?? 0) <= 2 * CONTEXT_LINES) end += 1;
    const from = Math.max(0, (changed[start] ?? 0) - CONTEXT_LINES);
    const to = Math.min(ops.length, (changed[end] ?? 0) + CONTEXT_LINES + 1);
    let oldLine = 1;
    let newLine = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== '+') oldLine += 1;
      if (op.kind !== '-') newLine += 1;
    }
    const hunk = ops.slice(from, to);
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    out.push(
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
    );
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    start = end + 1;
  }
  return `${out.join('\n')}\n`;
}
