// The optional judge (`learning.judge.model`): after a turn no other source resolved, one small model call reads the
// user message and the answer and says success or failure. Off the turn's path, one call at a time per agent (a turn
// finishing while its agent's judge is busy is not judged), bounded in time and in the characters it sends.
import type { Logger } from 'pino';
import type { LearningConfig } from '../config/index.js';
import type { CallPayer, GatewayModelRouter } from '../providers/index.js';
import { DEFAULT_TENANT, parseSessionKey } from '../sessions/index.js';
import { LEARNING_PAYER_ID } from './learning-payer.js';
import type { LearningOutcome, OutcomeRecord, SessionPort } from '../store/index.js';
import { transcriptReader } from './transcript-texts.js';

/** Characters of the user message and of the answer each sent to the judge; longer texts are cut. */
export const JUDGE_MAX_TEXT_CHARS = 4_000;
/** A judge call that has not answered by then is abandoned (the turn stays as it was). */
export const JUDGE_TIMEOUT_MS = 30_000;
/** Characters of the judge's answer read; its first word is the verdict. */
const VERDICT_MAX_CHARS = 64;

const JUDGE_SYSTEM =
  'You grade whether an assistant answer fulfilled the user request. Reply with exactly one word: ' +
  'success, failure, or unknown.';

export interface JudgeDeps {
  router: Pick<GatewayModelRouter, 'stream' | 'resolve'>;
  sessions: Pick<SessionPort, 'history'>;
  config: () => LearningConfig;
  now: () => number;
  log: Logger;
}

export interface Judge {
  /** Judges the turn in the background when a judge is configured and the agent's judge is free. */
  consider(record: OutcomeRecord, apply: (outcome: LearningOutcome) => void): void;
  /** Waits for the calls under way. */
  stop(): Promise<void>;
}

/** The verdict in a judge's answer: its first word, when it is one of the three. */
export function verdictOf(text: string): LearningOutcome | undefined {
  const word = /[a-z]+/iu.exec(text.slice(0, VERDICT_MAX_CHARS))?.[0]?.toLowerCase();
  return word === 'success' || word === 'failure' || word === 'unknown' ? word : undefined;
}

/** Who pays for judging a turn: the owner of the turn's session in its tenant; a session without one, the learning system. */
function judgePayer(record: OutcomeRecord): CallPayer {
  let tenantId = DEFAULT_TENANT;
  try {
    tenantId = parseSessionKey(record.sessionKey).tenantId;
  } catch {
    // A key the store accepted always parses; a foreign one is judged in the default tenant.
  }
  return { tokenId: record.ownerId ?? LEARNING_PAYER_ID, tenantId };
}

export function createJudge({ router, sessions, config, log }: JudgeDeps): Judge {
  const busy = new Map<string, Promise<void>>();

  async function judge(record: OutcomeRecord, model: string, apply: (outcome: LearningOutcome) => void) {
    const primary = router.resolve(model);
    if (primary === undefined) {
      log.warn({ model }, 'learning.judge.model names no configured model; turns are not judged');
      return;
    }
    const { userText, answerText } = await transcriptReader(sessions)(record.sessionKey, record.ts);
    if (userText.length === 0 || answerText.length === 0) return;
    const content =
      `User request:\n${userText.slice(0, JUDGE_MAX_TEXT_CHARS)}\n\n` +
      `Assistant answer:\n${answerText.slice(0, JUDGE_MAX_TEXT_CHARS)}`;
    let text = '';
    for await (const event of router.stream({
      primary,
      fallbacks: [],
      system: JUDGE_SYSTEM,
      messages: [{ role: 'user', content, timestamp: record.ts }],
      tools: [],
      agentId: record.agentId,
      sessionKey: record.sessionKey,
      payer: judgePayer(record),
      signal: AbortSignal.timeout(JUDGE_TIMEOUT_MS),
    })) {
      if (event.type === 'text-delta' && text.length < VERDICT_MAX_CHARS) text += event.text;
    }
    const verdict = verdictOf(text);
    if (verdict !== undefined) apply(verdict);
  }

  return {
    consider(record, apply) {
      const model = config().judge?.model;
      if (model === undefined || busy.has(record.agentId)) return;
      const call = judge(record, model, apply)
        .catch((error: unknown) => log.warn({ err: error, traceId: record.traceId }, 'learning judge failed'))
        .finally(() => busy.delete(record.agentId));
      busy.set(record.agentId, call);
    },
    async stop() {
      await Promise.all(busy.values());
    },
  };
}
