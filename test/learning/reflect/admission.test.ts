// The admission outcome of a reflect pass: one value when several clusters end differently (the precedence).
import { describe, expect, it } from 'vitest';
import { admissionOutcome } from '../../../src/learning/reflect/index.js';

const none = { fates: [], untrustedDrops: 0, maxCardinalityWithUntrusted: 0 };

describe('reflect admission outcome', () => {
  it('is admitted when any cluster was admitted, whatever the others did', () => {
    expect(
      admissionOutcome({
        ...none,
        fates: ['uncorroborated', 'rejected_validation', 'admitted', 'empty_reflection'],
        untrustedDrops: 4,
      }),
    ).toBe('admitted');
  });

  it('otherwise names the gate that stopped the cluster that got furthest', () => {
    expect(admissionOutcome({ ...none, fates: ['empty_reflection', 'rejected_validation', 'uncorroborated'] })).toBe(
      'rejected_validation',
    );
    expect(admissionOutcome({ ...none, fates: ['uncorroborated', 'rejected_name_length', 'empty_reflection'] })).toBe(
      'rejected_name_length',
    );
    expect(admissionOutcome({ ...none, fates: ['uncorroborated', 'empty_reflection'] })).toBe('empty_reflection');
    expect(admissionOutcome({ ...none, fates: ['uncorroborated', 'uncorroborated'] })).toBe('uncorroborated');
  });

  it('is untrusted_origin when only the dropped untrusted sources would have corroborated a cluster', () => {
    expect(admissionOutcome({ fates: ['uncorroborated'], untrustedDrops: 2, maxCardinalityWithUntrusted: 3 })).toBe(
      'untrusted_origin',
    );
    expect(admissionOutcome({ fates: ['uncorroborated'], untrustedDrops: 2, maxCardinalityWithUntrusted: 1 })).toBe(
      'uncorroborated',
    );
  });

  it('with no cluster at all: untrusted_origin when untrusted successes were dropped, else no_successes', () => {
    expect(admissionOutcome({ fates: [], untrustedDrops: 1, maxCardinalityWithUntrusted: 1 })).toBe('untrusted_origin');
    expect(admissionOutcome({ fates: [], untrustedDrops: 3, maxCardinalityWithUntrusted: 0 })).toBe('no_successes');
    expect(admissionOutcome(none)).toBe('no_successes');
  });
});
