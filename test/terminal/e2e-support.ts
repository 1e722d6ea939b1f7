// Helpers for the terminal end-to-end tests: a scripted "shell agent" for the fake LLM that opens a drive, types
// commands and reads until a marker shows, and the JSON-RPC calls the tests make as a client and as an operator.
import { createSqliteEvidencePort, openDatabase } from '../../src/store/sqlite/index.js';
import type { StoredTrajectory } from '../../src/store/index.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-llm-server.js';
import { callRpc } from '../support/http-client.js';

interface Message {
  role: string;
  content?: unknown;
}

const messagesOf = (request: RecordedRequest): Message[] =>
  (request.body as { messages?: Message[] } | undefined)?.messages ?? [];

const parsed = (content: unknown): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(String(content));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The tool results of the request's conversation, oldest first. */
export const toolResults = (request: RecordedRequest): string[] =>
  messagesOf(request)
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));

/** The tool results since the latest user message: this turn's. */
function turnResults(request: RecordedRequest): string[] {
  const messages = messagesOf(request);
  let start = 0;
  messages.forEach((message, index) => {
    if (message.role === 'user') start = index + 1;
  });
  return messages
    .slice(start)
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
}

/** The newest drive id any tool result of the conversation named. */
export function lastDriveId(request: RecordedRequest): string | undefined {
  const ids = toolResults(request)
    .map((content) => parsed(content)?.driveId)
    .filter((id): id is string => typeof id === 'string');
  return ids.at(-1);
}

export interface ShellPlan {
  /** Text for terminal_send, in order (each one call). */
  commands: readonly string[];
  /** The turn answers once the outputs read in it contain this. */
  until?: string;
  /** Open a new drive in this turn even when the conversation already has one. */
  open?: boolean;
}

/**
 * The fake model's reply for one step of a shell task: open a drive, send each command, read until `until` shows
 * (or at once when none), then answer. A tool error ends the turn with the error as the answer.
 */
export function shellAgent(plan: ShellPlan): (request: RecordedRequest) => ScriptedReply {
  return (request) => {
    const results = turnResults(request);
    const last = results.at(-1);
    if (last?.startsWith('Error:') === true) return { text: `Stopped: ${last}` };
    const opened = results.some((content) => parsed(content)?.cwd !== undefined);
    const driveId = lastDriveId(request);
    if (driveId === undefined || (plan.open === true && !opened))
      return { toolCalls: [{ name: 'terminal_open', arguments: {} }] };
    const sent = results.filter((content) => parsed(content)?.interactions !== undefined).length;
    const command = plan.commands[sent];
    if (command !== undefined) return { toolCalls: [{ name: 'terminal_send', arguments: { driveId, text: command } }] };
    const output = results.map((content) => parsed(content)?.output ?? '').join('');
    if (plan.until === undefined || String(output).includes(plan.until)) return { text: `Finished: ${output}` };
    return { toolCalls: [{ name: 'terminal_read', arguments: { driveId, waitMs: 2_000 } }] };
  };
}

export interface Gateway {
  url: string;
  tokens: { admin: string; rpc: string };
}

/** A JSON-RPC call that must succeed; its result. */
export async function ok(gw: Gateway, token: string, method: string, params: unknown = {}): Promise<unknown> {
  const response = await callRpc(gw.url, token, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result;
}

/** Runs one turn of `agentId` in the session `peer` as the rpc token; its result. */
export const turn = (gw: Gateway, agentId: string, peer: string, message: string) =>
  ok(gw, gw.tokens.rpc, 'agent.execute', {
    agentId,
    message,
    sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'term', peerId: peer },
  }) as Promise<{ response: string; finishReason: string; traceId: string }>;

/** The session key string of `peer` as turn() builds it. */
export const sessionOf = (peer: string) => `default:alice:term:${peer}`;

export interface ListedDrive {
  driveId: string;
  agentId: string;
  sessionKey: string;
  state: string;
  interactions: number;
  ageMs: number;
}

export const listDrives = async (gw: Gateway, params: Record<string, unknown> = {}) =>
  ((await ok(gw, gw.tokens.admin, 'terminal.list', params)) as { drives: ListedDrive[] }).drives;

/** obs.explain of a session's likely root cause (the report flushes the recorder first). */
export const rootCause = async (gw: Gateway, peer: string) =>
  (
    (await ok(gw, gw.tokens.admin, 'obs.explain', { sessionKey: sessionOf(peer) })) as {
      likelyRootCause: { code: string; evidence?: Record<string, unknown> };
    }
  ).likelyRootCause;

/** A session's stored trajectory, read from the gateway's SQLite file (after obs.explain or close flushed it). */
export async function trajectoryOf(databasePath: string, peer: string): Promise<StoredTrajectory[]> {
  const db = openDatabase({ path: databasePath });
  try {
    return await createSqliteEvidencePort(db).trajectoryOf(sessionOf(peer));
  } finally {
    db.close();
  }
}
