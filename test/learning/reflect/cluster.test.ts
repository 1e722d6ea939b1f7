// Reflect's clustering of source trajectories: trust and success filters, the cluster key, and corroboration.
import { describe, expect, it } from 'vitest';
import { clusterSources, type SourceTrajectory } from '../../../src/learning/reflect/index.js';

let seq = 0;
function source(overrides: Partial<SourceTrajectory> = {}): SourceTrajectory {
  seq += 1;
  return {
    traceId: `trace-${seq}`,
    sessionKey: 'ops:webchat:alice',
    senderId: 'alice',
    agentId: 'ops',
    ts: 1_000 + seq,
    outcome: 'success',
    toolSequence: ['get_weather', 'current_time'],
    topicKey: 'forecast+weather',
    trusted: true,
    userText: 'What is the weather forecast?',
    answerText: 'Sunny.',
    ...overrides,
  };
}

describe('reflect clustering', () => {
  it('groups successes by tool sequence and topic key; cardinality counts distinct (session, sender) pairs', () => {
    const sorted = clusterSources([
      source({ sessionKey: 'ops:webchat:a', senderId: 'alice' }),
      source({ sessionKey: 'ops:webchat:a', senderId: 'alice' }),
      source({ sessionKey: 'ops:webchat:b', senderId: 'alice' }),
      source({ sessionKey: 'ops:webchat:c', senderId: 'bob' }),
      source({ sessionKey: 'ops:webchat:d', senderId: 'bob', topicKey: 'rain+tomorrow' }),
      source({ sessionKey: 'ops:webchat:e', senderId: 'carol', toolSequence: ['current_time'] }),
    ]);
    expect(sorted.clusters.map((cluster) => [cluster.topicKey, cluster.toolSequence, cluster.cardinality])).toEqual([
      ['forecast+weather', ['get_weather', 'current_time'], 3],
      ['forecast+weather', ['current_time'], 1],
      ['rain+tomorrow', ['get_weather', 'current_time'], 1],
    ]);
    expect(sorted.clusters[0]?.sources).toHaveLength(4);
    expect(sorted.maxClusterCardinality).toBe(3);
    expect(sorted.distinctTopicKeys).toBe(2);
  });

  it('one sender in one session stays a single instance however often it repeats', () => {
    const sorted = clusterSources([source(), source(), source()]);
    expect(sorted.clusters).toHaveLength(1);
    expect(sorted.maxClusterCardinality).toBe(1);
  });

  it('the same session with two senders (a group chat) corroborates', () => {
    const sorted = clusterSources([source({ senderId: 'alice' }), source({ senderId: 'bob' })]);
    expect(sorted.maxClusterCardinality).toBe(2);
  });

  it('collapses consecutive repeats of a tool, so a retried call is the same sequence', () => {
    const sorted = clusterSources([
      source({ sessionKey: 's1', toolSequence: ['get_weather', 'get_weather', 'current_time'] }),
      source({ sessionKey: 's2', toolSequence: ['get_weather', 'current_time'] }),
    ]);
    expect(sorted.clusters.map((cluster) => [cluster.toolSequence, cluster.cardinality])).toEqual([
      [['get_weather', 'current_time'], 2],
    ]);
  });

  it('keeps the tool order: the same tools in another order are another cluster', () => {
    const sorted = clusterSources([
      source({ sessionKey: 's1', toolSequence: ['a', 'b'] }),
      source({ sessionKey: 's2', toolSequence: ['b', 'a'] }),
    ]);
    expect(sorted.clusters).toHaveLength(2);
    expect(sorted.maxClusterCardinality).toBe(1);
  });

  it('drops and counts untrusted sources of any outcome, and skips trusted ones that failed or called no tool', () => {
    const sorted = clusterSources([
      source({ sessionKey: 'ops:webhook:x', trusted: false }),
      source({ sessionKey: 'ops:webhook:y', trusted: false, outcome: 'failure' }),
      source({ outcome: 'failure' }),
      source({ outcome: 'corrected' }),
      source({ outcome: 'unknown' }),
      source({ outcome: null }),
      source({ toolSequence: [] }),
      source({ sessionKey: 's-ok' }),
    ]);
    expect(sorted.untrustedDrops).toBe(2);
    expect(sorted.skipped).toBe(5);
    expect(sorted.clusters).toHaveLength(1);
    expect(sorted.clusters[0]?.sources.map((one) => one.sessionKey)).toEqual(['s-ok']);
  });

  it('tells what the dropped untrusted successes would have corroborated', () => {
    const sorted = clusterSources([
      source({ sessionKey: 'ops:webhook:x', senderId: 'webhook', trusted: false }),
      source({ sessionKey: 'ops:webhook:y', senderId: 'webhook', trusted: false }),
      source({ sessionKey: 's1' }),
    ]);
    expect(sorted.maxClusterCardinality).toBe(1);
    expect(sorted.maxCardinalityWithUntrusted).toBe(3);
  });

  it('counts every source read and the characters of its user message and answer', () => {
    const sorted = clusterSources([
      source({ userText: 'abc', answerText: 'de', trusted: false }),
      source({ userText: 'fgh', answerText: '', outcome: 'failure' }),
      source({ userText: '', answerText: 'ij' }),
    ]);
    expect(sorted.sourceTrajectoryCount).toBe(3);
    expect(sorted.totalSourceChars).toBe(10);
  });

  it('lists a cluster newest first and orders clusters by corroboration, then by their newest source', () => {
    const older = source({ sessionKey: 's1', topicKey: 'alpha', ts: 10 });
    const newer = source({ sessionKey: 's2', topicKey: 'alpha', ts: 20 });
    const lone = source({ sessionKey: 's3', topicKey: 'beta', ts: 30 });
    const sorted = clusterSources([older, lone, newer]);
    expect(sorted.clusters.map((cluster) => cluster.topicKey)).toEqual(['alpha', 'beta']);
    expect(sorted.clusters[0]?.sources.map((one) => one.traceId)).toEqual([newer.traceId, older.traceId]);
  });

  it('answers zeros for no sources', () => {
    expect(clusterSources([])).toEqual({
      clusters: [],
      untrustedDrops: 0,
      skipped: 0,
      sourceTrajectoryCount: 0,
      totalSourceChars: 0,
      distinctTopicKeys: 0,
      maxClusterCardinality: 0,
      maxCardinalityWithUntrusted: 0,
    });
  });
});
