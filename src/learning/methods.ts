// The learning methods: learned procedures for operators (skills.learned.*), a reflect pass on demand (skills.reflect)
// and explicit feedback on a session's last finished turn (session.feedback, the owner's or an admin's).
import { z } from 'zod';
import { procedureNotFound, reflectUnavailable } from '../errors.js';
import { defineMethod } from '../rpc/index.js';
import { sessionCallerOf, sessionKeyStringSchema } from '../sessions/index.js';
import type { LearnedProcedure, LearningPort } from '../store/index.js';
import type { Outcomes } from './outcomes.js';
import type { Procedures } from './procedures.js';
import type { Reflector } from './types.js';

/** Procedures skills.learned.list returns at most. */
export const LEARNED_LIST_MAX = 1_000;
/** Uses skills.learned.get returns, newest first. */
export const LEARNED_USES_SHOWN = 50;
/** Characters of a session.feedback note (read and dropped: never stored in evidence). */
export const FEEDBACK_NOTE_MAX_CHARS = 2_000;

const id = z.string().min(1).max(256);
const agentId = z.string().min(1).max(128);
const state = z.enum(['candidate', 'active', 'stale', 'archived']);

export interface LearningMethodsDeps {
  port: LearningPort;
  procedures: Pick<Procedures, 'archive'>;
  outcomes: Pick<Outcomes, 'feedback'>;
  /** Undefined while no reflect stage is wired. */
  reflector: () => Reflector | undefined;
  enabled: () => boolean;
}

function summary(procedure: LearnedProcedure) {
  const { id: procedureId, agentId: agent, name, description, state: current, tools } = procedure;
  const { successUses, failureUses, cardinality, synthesisAbstained, createdAt, updatedAt } = procedure;
  return {
    id: procedureId,
    agentId: agent,
    name,
    description,
    state: current,
    tools,
    successUses,
    failureUses,
    cardinality,
    synthesisAbstained,
    createdAt,
    updatedAt,
  };
}

export function learningMethods({ port, procedures, outcomes, reflector, enabled }: LearningMethodsDeps) {
  return [
    defineMethod({
      name: 'skills.learned.list',
      scope: 'admin',
      summary: `Learned procedures (every state, or one), by agent then creation; at most ${LEARNED_LIST_MAX}.`,
      params: z.strictObject({ agentId: agentId.optional(), state: state.optional() }),
      handler: async (params) => ({
        procedures: (await port.procedures({ ...params, limit: LEARNED_LIST_MAX })).map(summary),
      }),
    }),
    defineMethod({
      name: 'skills.learned.get',
      scope: 'admin',
      summary: `One learned procedure with its body, source traces and newest ${LEARNED_USES_SHOWN} uses (archived ones too).`,
      params: z.strictObject({ id }),
      handler: async ({ id: procedureId }) => {
        const procedure = await port.procedure(procedureId);
        if (procedure === undefined) throw procedureNotFound(procedureId);
        const uses = await port.uses(procedureId, LEARNED_USES_SHOWN);
        return {
          ...summary(procedure),
          body: procedure.body,
          toolSequence: procedure.toolSequence,
          topicKey: procedure.topicKey,
          sourceTraceIds: procedure.sourceTraceIds,
          uses: uses.map(({ traceId, sessionKey, outcome, ts }) => ({ traceId, sessionKey, outcome, ts })),
        };
      },
    }),
    defineMethod({
      name: 'skills.learned.archive',
      scope: 'admin',
      summary: 'Archives a learned procedure: no longer offered to its agent, kept for skills.learned.get.',
      params: z.strictObject({ id }),
      handler: async ({ id: procedureId }) => {
        const archived = await procedures.archive(procedureId);
        if (archived === undefined) throw procedureNotFound(procedureId);
        return { id: archived.id, state: 'archived' as const };
      },
    }),
    defineMethod({
      name: 'skills.reflect',
      scope: 'admin',
      summary:
        "Runs a reflect pass now over one agent's finished turns (every agent with any when absent); its funnels.",
      params: z.strictObject({ agentId: agentId.optional() }),
      handler: async ({ agentId: agent }) => {
        if (!enabled()) throw reflectUnavailable('learning.enabled is false');
        const current = reflector();
        if (current === undefined) throw reflectUnavailable('no reflect stage is configured');
        return { funnels: await current.reflect(agent) };
      },
    }),
    defineMethod({
      name: 'session.feedback',
      scope: 'rpc',
      summary:
        "Sets the outcome of the session's last finished turn (source explicit); the session's owner or an admin only " +
        '(forbidden otherwise, nothing changed). The note is not stored.',
      params: z.strictObject({
        sessionKey: sessionKeyStringSchema,
        outcome: z.enum(['success', 'failure', 'corrected']),
        note: z.string().max(FEEDBACK_NOTE_MAX_CHARS).optional(),
      }),
      handler: ({ sessionKey, outcome }, ctx) =>
        outcomes.feedback({ sessionKey, outcome, caller: sessionCallerOf(ctx.caller) }),
    }),
  ];
}
