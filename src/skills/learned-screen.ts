// Holds learned procedures to a skill's rules before an agent is offered one: a procedure breaking a rule or cap is
// left out and announced once (skill:rejected with its agent and the reason); verdicts are kept per procedure version.
import type { Logger } from 'pino';
import type { SkillsConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import { learnedProcedureProblem } from './skill-manifest.js';
import type { OfferedProcedure } from './types.js';

/** Procedure verdicts kept at once; past it they are all forgotten and made again (rejections announced again). */
export const MAX_SCREENED_PROCEDURES = 10_000;

interface Verdict {
  name: string;
  description: string;
  body: string;
  problem: string | undefined;
}

export interface LearnedScreen {
  /** The procedures that pass, in the order given. */
  admit(procedures: readonly OfferedProcedure[]): OfferedProcedure[];
}

export interface LearnedScreenDeps {
  config: () => Pick<SkillsConfig, 'maxBodyChars'>;
  events: Pick<EventBus, 'emit'>;
  log: Logger;
}

export function createLearnedScreen({ config, events, log }: LearnedScreenDeps): LearnedScreen {
  const verdicts = new Map<string, Verdict>();

  function problemOf(procedure: OfferedProcedure): string | undefined {
    const { id, name, description, body } = procedure;
    const kept = verdicts.get(id);
    if (kept !== undefined && kept.name === name && kept.description === description && kept.body === body)
      return kept.problem;
    const problem = learnedProcedureProblem(procedure, config());
    if (verdicts.size >= MAX_SCREENED_PROCEDURES) verdicts.clear();
    verdicts.set(id, { name, description, body, problem });
    if (problem !== undefined) {
      log.warn({ agentId: procedure.agentId, procedureId: id, reason: problem }, 'learned procedure rejected');
      events.emit('skill:rejected', { agentId: procedure.agentId, skill: name, reason: problem });
    }
    return problem;
  }

  return {
    admit: (procedures) => (procedures.length === 0 ? [] : procedures.filter((p) => problemOf(p) === undefined)),
  };
}
