// The one unknown-error mask and the one zod issue reader that every surface shares.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentNotFound, agentSuspended, bracketPath, dottedPath, firstIssue, GatewayError, maskUnknown, publicMessage, readIssues } from '../src/errors.js';

function recordingLog() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  return { lines, error: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) };
}

describe('unknown-error mask', () => {
  it('logs an unknown failure with its cause and the given fields, and shows the client only "Internal error"', () => {
    const log = recordingLog();
    const cause = new Error('SQLITE_BUSY: database is locked at /secret/path');
    const masked = maskUnknown(cause, log, { traceId: 't-1' }, 'handler failed');
    expect(masked.kind).toBe('internal');
    expect(publicMessage(masked)).toBe('Internal error');
    expect(log.lines).toEqual([{ fields: { err: cause, traceId: 't-1' }, message: 'handler failed' }]);
  });

  it('passes a known failure through with its own message and logs nothing', () => {
    const log = recordingLog();
    const known = agentNotFound('ghost');
    expect(maskUnknown(known, log, {}, 'x')).toBe(known);
    expect(publicMessage(known)).toBe("Agent 'ghost' not found");
    expect(log.lines).toEqual([]);
  });

  it('hides the message of an internal GatewayError too', () => {
    expect(publicMessage(new GatewayError('internal', 'git commit left no HEAD'))).toBe('Internal error');
  });

  it('words one failure one way wherever it is raised', () => {
    expect(agentSuspended('ops')).toMatchObject({ kind: 'conflict', message: "Agent 'ops' is suspended and accepts no new messages", details: { param: 'agentId' } });
    expect(agentSuspended('ops', 'model').details).toEqual({ param: 'model' });
  });
});

describe('zod issue reader', () => {
  const schema = z.strictObject({ name: z.string(), items: z.array(z.strictObject({ n: z.number() })) });

  it('splits unknown keys into one issue each, with the key in the path', () => {
    const parsed = schema.safeParse({ name: 'a', items: [], x: 1, y: 2 });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(readIssues(parsed.error.issues).map((issue) => [issue.problem, dottedPath(issue.path)])).toEqual([
      ['unknown_key', 'x'],
      ['unknown_key', 'y'],
    ]);
  });

  it('tells a missing value from a bad one, prefers unknown keys, and prints both path forms', () => {
    const parsed = schema.safeParse({ items: [{ n: 'one' }], extra: true });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const issues = readIssues(parsed.error.issues);
    expect(issues.map((issue) => issue.problem).sort()).toEqual(['invalid', 'missing', 'unknown_key']);
    const bad = issues.find((issue) => issue.problem === 'invalid');
    expect(bad && [dottedPath(bad.path), bracketPath(bad.path), bad.reason]).toEqual(['items.0.n', 'items[0].n', 'expected number, received string']);
    expect(firstIssue(parsed.error.issues)?.problem).toBe('unknown_key');
  });
});
