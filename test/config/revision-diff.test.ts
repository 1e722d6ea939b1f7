// unifiedDiff: the git-style unified diff config.diff answers for database revisions.
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/config/database-history.js';
import { CONFIG_LIMITS } from '../../src/config/limits.js';

const lines = (count: number, changed: Record<number, string> = {}) =>
  `${Array.from({ length: count }, (_, index) => changed[index + 1] ?? `line ${index + 1}`).join('\n')}\n`;

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff(lines(5), lines(5), 'config.yaml')).toBe('');
  });

  it('shows a change with three lines of context and the hunk positions', () => {
    expect(unifiedDiff(lines(10), lines(10, { 5: 'changed 5' }), 'config.yaml')).toBe(
      [
        '--- a/config.yaml',
        '+++ b/config.yaml',
        '@@ -2,7 +2,7 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+changed 5',
        ' line 6',
        ' line 7',
        ' line 8',
        '',
      ].join('\n'),
    );
  });

  it('gives changes far apart their own hunks and close ones a shared hunk', () => {
    const apart = unifiedDiff(lines(30), lines(30, { 3: 'x', 25: 'y' }), 'c.yaml');
    expect(apart.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,6 +1,6 @@', '@@ -22,7 +22,7 @@']);
    const close = unifiedDiff(lines(30), lines(30, { 10: 'x', 14: 'y' }), 'c.yaml');
    expect(close.match(/^@@ .* @@$/gm)).toEqual(['@@ -7,11 +7,11 @@']);
  });

  it('shows a first revision as added from /dev/null', () => {
    expect(unifiedDiff('', 'a: 1\n', 'config.yaml')).toBe(
      ['--- /dev/null', '+++ b/config.yaml', '@@ -0,0 +1,1 @@', '+a: 1', ''].join('\n'),
    );
  });

  it('shows a rewrite too large to align as the whole old text removed and the new one added', () => {
    const count = CONFIG_LIMITS.diffMaxEditLines;
    const before = lines(count);
    const after = lines(
      count,
      Object.fromEntries(Array.from({ length: count }, (_, index) => [index + 1, `new ${index + 1}`])),
    );
    const diff = unifiedDiff(before, after, 'config.yaml').split('\n');
    expect(diff.slice(0, 3)).toEqual(['--- a/config.yaml', '+++ b/config.yaml', `@@ -1,${count} +1,${count} @@`]);
    expect(diff.slice(3, 3 + count).every((line) => line.startsWith('-line '))).toBe(true);
    expect(diff.slice(3 + count, 3 + 2 * count).every((line) => line.startsWith('+new '))).toBe(true);
  });
});
