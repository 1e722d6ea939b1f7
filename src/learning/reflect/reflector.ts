// One reflect pass per agent: read its sources, cluster them, synthesize a procedure per corroborated cluster (the
// agent's model, or deterministically when its tier is small or nano), hold it to the name and tool rules, admit it,
// and report the pass as a reflect.funnel health signal.
import { agentModels, offeredToolNames, type AgentDefinition } from '../../agents/index.js';
import { notFound } from '../../errors.js';
import { SIGNAL_KIND, TRAJECTORY_KIND } from '../../obs/index.js';
import type { ModelRef, ModelTier } from '../../providers/index.js';
import { admissionOutcome, type ClusterFate } from './admission.js';
import { clusterSources, type Cluster } from './cluster.js';
import { MAX_DECIDED_CLUSTERS_PER_AGENT } from './limits.js';
import { deterministicProcedure, isProcedureNameTooLong, missingTools, type Procedure } from './procedure.js';
import { passWatermark, withinSourceBounds } from './source-bounds.js';
import { synthesizeWithModel } from './synthesis.js';
import type { CandidateProcedure, ReflectDeps, ReflectFunnel, Reflector } from './types.js';

/** Tiers whose models are not asked to write a procedure (DESIGN §3 "model tiers"). */
const ABSTAINING_TIERS: ReadonlySet<ModelTier> = new Set(['small', 'nano']);

/** learning_synthesis's reason: the model is below the capability floor, or the agent has no model at all. */
type AbstainReason = 'low_capability_tier' | 'no_model';

interface SynthesisPlan {
  model?: { primary: ModelRef; fallbacks: readonly ModelRef[] };
  abstain?: AbstainReason;
}

interface Tally {
  synthesized: number;
  validated: number;
  admitted: number;
  nameLengthRejections: number;
}

export function createReflector(deps: ReflectDeps): Reflector {
  const { ports, router, agents, tools, config, recorder, signals, now, log } = deps;

  function planFor(agent: AgentDefinition): SynthesisPlan {
    const { primary, fallbacks } = agentModels(agent.config, router);
    if (primary === undefined) return { abstain: 'no_model' };
    const tier = router.entry(primary)?.tier ?? 'frontier';
    return ABSTAINING_TIERS.has(tier) ? { abstain: 'low_capability_tier' } : { model: { primary, fallbacks } };
  }

  /** The tool names a turn of the agent is given now, those that cannot be reached left out. */
  async function offeredTools(agent: AgentDefinition): Promise<Set<string>> {
    const turn = await tools.forTurn(offeredToolNames(agent.config));
    const unavailable = new Set(turn.unavailable.map((tool) => tool.toolName));
    return new Set(turn.specs.map((spec) => spec.name).filter((name) => !unavailable.has(name)));
  }

  /** Each source session of an abstained candidate gets the record obs.explain reads as learning.synthesisAbstained. */
  function recordAbstained(cluster: Cluster, reason: AbstainReason): void {
    const newestPerSession = new Map<string, string>();
    for (const source of cluster.sources)
      if (!newestPerSession.has(source.sessionKey)) newestPerSession.set(source.sessionKey, source.traceId);
    const ts = now();
    for (const [sessionKey, traceId] of newestPerSession)
      recorder.trajectory({
        sessionKey,
        traceId,
        kind: TRAJECTORY_KIND.learningSynthesis,
        ts,
        data: { abstained: true, reason },
      });
  }

  // Per agent, the clusters already taken through synthesis with the sources they had then: a pass that reads one
  // again (the mark waits behind an uncorroborated cluster) asks no model and admits nothing unless a source is new.
  const decided = new Map<string, Map<string, ReadonlySet<string>>>();
  const isDecided = (agentId: string, cluster: Cluster): boolean => {
    const seen = decided.get(agentId)?.get(cluster.key);
    return seen !== undefined && cluster.sources.every((source) => seen.has(source.traceId));
  };
  function noteDecided(agentId: string, cluster: Cluster): void {
    let clusters = decided.get(agentId);
    if (clusters === undefined) decided.set(agentId, (clusters = new Map()));
    clusters.delete(cluster.key);
    clusters.set(cluster.key, new Set(cluster.sources.map((source) => source.traceId)));
    const oldest = clusters.keys().next().value;
    if (clusters.size > MAX_DECIDED_CLUSTERS_PER_AGENT && oldest !== undefined) clusters.delete(oldest);
  }

  /** The cluster's fate this pass; undefined when it was decided in an earlier pass and has no new source. */
  async function reflectCluster(
    agent: AgentDefinition,
    cluster: Cluster,
    plan: SynthesisPlan,
    offered: () => Promise<Set<string>>,
    tally: Tally,
  ): Promise<ClusterFate | undefined> {
    if (cluster.cardinality < 2) return 'uncorroborated';
    if (isDecided(agent.id, cluster)) return undefined;
    const fate = await takeThrough(agent, cluster, plan, offered, tally);
    noteDecided(agent.id, cluster);
    return fate;
  }

  /** Synthesis, the name rule, validation and admission of a corroborated cluster. */
  async function takeThrough(
    agent: AgentDefinition,
    cluster: Cluster,
    plan: SynthesisPlan,
    offered: () => Promise<Set<string>>,
    tally: Tally,
  ): Promise<ClusterFate> {
    const procedure: Procedure | undefined =
      plan.model === undefined
        ? deterministicProcedure(cluster)
        : await synthesizeWithModel({ router, ...plan.model, agentId: agent.id, cluster, log });
    if (procedure === undefined) return 'empty_reflection';
    tally.synthesized += 1;
    if (isProcedureNameTooLong(procedure.name)) {
      tally.nameLengthRejections += 1;
      return 'rejected_name_length';
    }
    if (missingTools(procedure.tools, await offered()).length > 0) return 'rejected_validation';
    tally.validated += 1;
    const candidate: CandidateProcedure = {
      agentId: agent.id,
      name: procedure.name,
      description: procedure.description,
      body: procedure.body,
      tools: procedure.tools,
      toolSequence: cluster.toolSequence,
      topicKey: cluster.topicKey,
      cardinality: cluster.cardinality,
      synthesisAbstained: plan.abstain !== undefined,
      sourceTraceIds: cluster.sources.map((source) => source.traceId),
    };
    await ports.admit(candidate);
    tally.admitted += 1;
    if (plan.abstain !== undefined) recordAbstained(cluster, plan.abstain);
    return 'admitted';
  }

  async function pass(agent: AgentDefinition, isAsked: boolean): Promise<ReflectFunnel | undefined> {
    const { maxSourceTrajectories, maxSourceChars } = config();
    const limits = { maxTrajectories: maxSourceTrajectories, maxChars: maxSourceChars };
    await deps.settled?.();
    const sources = withinSourceBounds(await ports.readSources(agent.id, limits), limits);
    // A scheduled pass over an agent with nothing new says nothing; an asked-for one always answers.
    if (sources.length === 0 && !isAsked) return undefined;
    const sorted = clusterSources(sources);
    const plan = planFor(agent);
    let offered: Promise<Set<string>> | undefined;
    const tally: Tally = { synthesized: 0, validated: 0, admitted: 0, nameLengthRejections: 0 };
    const fates: ClusterFate[] = [];
    // One cluster at a time: synthesis calls of one pass never pile up on the agent's provider.
    for (const cluster of sorted.clusters) {
      const fate = await reflectCluster(agent, cluster, plan, () => (offered ??= offeredTools(agent)), tally);
      if (fate !== undefined) fates.push(fate);
    }
    const timestamp = now();
    const funnel: ReflectFunnel = {
      agentId: agent.id,
      ...tally,
      maxClusterCardinality: sorted.maxClusterCardinality,
      distinctTopicKeys: sorted.distinctTopicKeys,
      untrustedDrops: sorted.untrustedDrops,
      skipped: sorted.skipped,
      sourceTrajectoryCount: sorted.sourceTrajectoryCount,
      totalSourceChars: sorted.totalSourceChars,
      admissionOutcome: admissionOutcome({
        fates,
        untrustedDrops: sorted.untrustedDrops,
        maxCardinalityWithUntrusted: sorted.maxCardinalityWithUntrusted,
      }),
      timestamp,
    };
    signals?.record({ kind: SIGNAL_KIND.reflectFunnel, ts: timestamp, agentId: agent.id, data: { ...funnel } });
    if (funnel.admitted > 0)
      signals?.record({
        kind: SIGNAL_KIND.reflectAdmitted,
        ts: timestamp,
        agentId: agent.id,
        data: { agentId: agent.id, count: funnel.admitted, timestamp },
      });
    if (sources.length > 0) await ports.markPassed(agent.id, passWatermark(sources, sorted.clusters));
    log.info(
      { agentId: agent.id, admitted: funnel.admitted, admissionOutcome: funnel.admissionOutcome },
      'reflect pass done',
    );
    return funnel;
  }

  // A pass asked for while the same agent's pass runs (the schedule and skills.reflect) joins it: one agent's sources
  // are never read, synthesized and admitted twice at once.
  const running = new Map<string, Promise<ReflectFunnel | undefined>>();
  function passOnce(agent: AgentDefinition, isAsked: boolean): Promise<ReflectFunnel | undefined> {
    const current = running.get(agent.id);
    if (current !== undefined) return current;
    const started = pass(agent, isAsked).finally(() => running.delete(agent.id));
    running.set(agent.id, started);
    return started;
  }

  return {
    async reflect(agentId) {
      if (agentId !== undefined) {
        const agent = agents.get(agentId);
        if (agent === undefined) throw notFound(`Unknown agent '${agentId}'`, { param: 'agentId' });
        const funnel = await passOnce(agent, true);
        return funnel === undefined ? [] : [funnel];
      }
      const funnels: ReflectFunnel[] = [];
      for (const agent of agents.list()) {
        const funnel = await passOnce(agent, false);
        if (funnel !== undefined) funnels.push(funnel);
      }
      return funnels;
    },
  };
}
