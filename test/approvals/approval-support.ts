// Client-side helpers for the approval tests: a turn over a real WebSocket, admin calls, and what the model was sent.
import { expect } from 'vitest';
import type { FakeLlm } from '../support/fake-llm-server.js';
import { callRpc } from '../support/http-client.js';
import { connect, type Frame, type TestSocket } from '../support/ws-client.js';
import type { ApprovalGateway } from './approval-gateway.js';

export interface PendingEntry {
  id: string;
  agentId: string;
  sessionKey: string;
  toolName: string;
  args: unknown;
  argsDigest: string;
  expiresAt: number | null;
}

export const keyOf = (peerId: string) => `default:alice:test:${peerId}`;

/** Starts agent.execute over a WebSocket with the rpc token; `reply` is the turn's response frame. */
export function startTurn(gw: ApprovalGateway, peerId: string, message: string, sockets: TestSocket[]): Promise<Frame> {
  const socket = connect(gw.wsUrl, { token: gw.tokens.rpc });
  sockets.push(socket);
  return socket.call('agent.execute', {
    message,
    sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId },
  });
}

export async function admin(gw: ApprovalGateway, method: string, params?: unknown): Promise<Record<string, unknown>> {
  return callRpc(gw.url, gw.tokens.admin, method, params);
}

export async function pending(gw: ApprovalGateway): Promise<PendingEntry[]> {
  const response = await admin(gw, 'admin.approval.pending', {});
  return (response.result as { requests: PendingEntry[] }).requests;
}

/** Waits until `count` requests are pending and returns them. */
export async function waitForPending(gw: ApprovalGateway, count: number): Promise<PendingEntry[]> {
  await expect.poll(async () => (await pending(gw)).length, { timeout: 5_000 }).toBe(count);
  return pending(gw);
}

interface ChatMessage {
  role: string;
  content?: unknown;
}

/** The tool results the model was sent in the latest request that carried the user message `message`. */
export function toolResultsSent(llm: FakeLlm, message: string): string[] {
  const bodies = llm.chatRequests().map((request) => request.body as { messages: ChatMessage[] });
  const latest = bodies
    .filter((body) => body.messages.some((entry) => entry.role === 'user' && entry.content === message))
    .at(-1);
  const messages = latest?.messages ?? [];
  const start = messages.findLastIndex((entry) => entry.role === 'user' && entry.content === message);
  return messages
    .slice(start + 1)
    .filter((entry) => entry.role === 'tool')
    .map((entry) => String(entry.content));
}

export const resultOf = (frame: Frame) => frame.result as { response: string; finishReason: string };
