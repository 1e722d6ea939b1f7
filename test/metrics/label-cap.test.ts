// Label caps: each label keeps its first `max` distinct values; later new ones read as _other, known ones stay.
import { describe, expect, it } from 'vitest';
import { createLabelCaps, OTHER_LABEL_VALUE } from '../../src/metrics/index.js';

describe('label caps', () => {
  it('keeps 200 distinct values of a label out of 10,000 and maps the rest to _other', () => {
    const caps = createLabelCaps(200);
    const seen = new Set(Array.from({ length: 10_000 }, (_, i) => caps.cap('agent', `agent-${i}`)));
    expect(seen.size).toBe(201);
    expect(seen.has(OTHER_LABEL_VALUE)).toBe(true);
    expect(caps.cap('agent', 'agent-0')).toBe('agent-0');
    expect(caps.cap('agent', 'agent-199')).toBe('agent-199');
    expect(caps.cap('agent', 'agent-200')).toBe(OTHER_LABEL_VALUE);
  });

  it('counts each label on its own', () => {
    const caps = createLabelCaps(1);
    expect(caps.cap('agent', 'x')).toBe('x');
    expect(caps.cap('tool', 'y')).toBe('y');
    expect(caps.cap('agent', 'y')).toBe(OTHER_LABEL_VALUE);
  });
});
