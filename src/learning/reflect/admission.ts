// The one admissionOutcome of a reflect pass from how each cluster ended (the precedence is in README.md).
import type { AdmissionOutcome } from './types.js';

/** How one cluster ended, in the order of the gates it passes (corroboration, synthesis, name, validation). */
export type ClusterFate =
  'uncorroborated' | 'empty_reflection' | 'rejected_name_length' | 'rejected_validation' | 'admitted';

/** Further along first: the outcome names the gate that stopped the cluster that came closest to admission. */
const FURTHEST_FIRST: readonly ClusterFate[] = [
  'admitted',
  'rejected_validation',
  'rejected_name_length',
  'empty_reflection',
  'uncorroborated',
];

export interface PassEnding {
  fates: readonly ClusterFate[];
  untrustedDrops: number;
  maxCardinalityWithUntrusted: number;
}

export function admissionOutcome({ fates, untrustedDrops, maxCardinalityWithUntrusted }: PassEnding): AdmissionOutcome {
  const furthest = FURTHEST_FIRST.find((fate) => fates.includes(fate));
  // Dropping untrusted sources is the reason only when they would have made a corroborated cluster (or any cluster).
  const untrustedDenied = untrustedDrops > 0 && maxCardinalityWithUntrusted >= (furthest === undefined ? 1 : 2);
  if (furthest === undefined) return untrustedDenied ? 'untrusted_origin' : 'no_successes';
  if (furthest === 'uncorroborated' && untrustedDenied) return 'untrusted_origin';
  return furthest;
}
