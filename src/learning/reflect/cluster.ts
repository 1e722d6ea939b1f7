// Sorts one pass's source trajectories: untrusted ones dropped, non-successes skipped, successes clustered by
// normalized tool sequence and topic key, each cluster's corroboration counted in distinct (session, sender) pairs.
import type { SourceTrajectory } from './types.js';

export interface Cluster {
  /** Topic key and tool sequence as one string: what identifies the cluster from pass to pass. */
  key: string;
  topicKey: string;
  /** Consecutive repeats collapsed. */
  toolSequence: readonly string[];
  /** Newest first. */
  sources: SourceTrajectory[];
  /** Distinct (sessionKey, senderId) pairs among the sources. */
  cardinality: number;
}

export interface SortedSources {
  /** Most corroborated first, then the one with the newest source. */
  clusters: Cluster[];
  untrustedDrops: number;
  skipped: number;
  sourceTrajectoryCount: number;
  totalSourceChars: number;
  distinctTopicKeys: number;
  maxClusterCardinality: number;
  /** The largest cardinality had the untrusted successes been kept: whether dropping them is what left it below 2. */
  maxCardinalityWithUntrusted: number;
}

/** A tool called again right after itself (a retry, a paged read) is one step of the procedure. */
export function normalizeToolSequence(sequence: readonly string[]): string[] {
  return sequence.filter((tool, index) => index === 0 || sequence[index - 1] !== tool);
}

const isClusterable = (source: SourceTrajectory): boolean =>
  source.outcome === 'success' && source.toolSequence.length > 0;

// NUL cannot occur in a tool name or a topic key, so the joined key is unambiguous.
const clusterKey = (topicKey: string, sequence: readonly string[]): string =>
  `${topicKey}\u0000${sequence.join('\u0000')}`;
const pairKey = (source: SourceTrajectory): string => `${source.sessionKey}\u0000${source.senderId}`;

interface Group {
  key: string;
  topicKey: string;
  toolSequence: string[];
  sources: SourceTrajectory[];
  pairs: Set<string>;
}

function group(sources: readonly SourceTrajectory[]): Group[] {
  const groups = new Map<string, Group>();
  for (const source of sources) {
    const toolSequence = normalizeToolSequence(source.toolSequence);
    const key = clusterKey(source.topicKey, toolSequence);
    let found = groups.get(key);
    if (found === undefined) {
      found = { key, topicKey: source.topicKey, toolSequence, sources: [], pairs: new Set() };
      groups.set(key, found);
    }
    found.sources.push(source);
    found.pairs.add(pairKey(source));
  }
  return [...groups.values()];
}

const newestFirst = (a: SourceTrajectory, b: SourceTrajectory): number => b.ts - a.ts;
const maxCardinality = (groups: readonly Group[]): number =>
  groups.reduce((max, one) => Math.max(max, one.pairs.size), 0);

export function clusterSources(sources: readonly SourceTrajectory[]): SortedSources {
  let untrustedDrops = 0;
  let skipped = 0;
  let totalSourceChars = 0;
  const trusted: SourceTrajectory[] = [];
  const allSuccesses: SourceTrajectory[] = [];
  for (const source of sources) {
    totalSourceChars += source.userText.length + source.answerText.length;
    if (isClusterable(source)) allSuccesses.push(source);
    if (!source.trusted) untrustedDrops += 1;
    else if (isClusterable(source)) trusted.push(source);
    else skipped += 1;
  }
  const groups = group(trusted);
  const clusters = groups
    .map((one) => ({
      key: one.key,
      topicKey: one.topicKey,
      toolSequence: one.toolSequence,
      sources: one.sources.sort(newestFirst),
      cardinality: one.pairs.size,
    }))
    .sort((a, b) => b.cardinality - a.cardinality || (b.sources[0]?.ts ?? 0) - (a.sources[0]?.ts ?? 0));
  return {
    clusters,
    untrustedDrops,
    skipped,
    sourceTrajectoryCount: sources.length,
    totalSourceChars,
    distinctTopicKeys: new Set(trusted.map((source) => source.topicKey)).size,
    maxClusterCardinality: maxCardinality(groups),
    maxCardinalityWithUntrusted: untrustedDrops === 0 ? maxCardinality(groups) : maxCardinality(group(allSuccesses)),
  };
}
