// The rows of sessions and their messages as both backends' hand-written SQL reads and writes them, and how they map to
// the SessionPort's records.
import { GatewayError } from '../../errors.js';
import {
  SESSION_OUTCOMES,
  type SessionKind,
  type SessionOutcome,
  type SessionRecord,
  type TranscriptMessage,
  type TranscriptToolCall,
} from '../index.js';
import { isSet } from './store-db.js';
import type { Tables } from './tables.js';

export type SessionRow = Tables['sessions'];

export type MessageRow = Omit<Tables['session_messages'], 'id' | 'session_key'>;

/** A JSON object column this store wrote (metadata, message data); anything but an object reads as {}. */
export function parseJsonObject(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function toOutcome(value: string | null | undefined): SessionOutcome | undefined {
  return SESSION_OUTCOMES.find((outcome) => outcome === value);
}

function toKind(value: string): SessionKind {
  return value === 'sub-agent' || value === 'group' ? value : 'dm';
}

/**
 * The metadata a caller sees: the stored object, then `usage` and `requestedBy` from their columns once a turn was
 * recorded (spreading first keeps the key order the JSON-only layout had).
 */
function toMetadata(row: SessionRow): Record<string, unknown> {
  const metadata = parseJsonObject(row.metadata);
  if (!isSet(row.has_usage) && row.last_requested_by === null) return metadata;
  const composed: Record<string, unknown> = { ...metadata };
  if (isSet(row.has_usage)) {
    composed.usage = {
      totalTokens: row.usage_total_tokens,
      totalCost: row.usage_total_cost,
      stepsExecuted: row.usage_steps,
      turns: row.usage_turns,
    };
  }
  if (row.last_requested_by !== null) composed.requestedBy = row.last_requested_by;
  return composed;
}

/** The JSON part of metadata: `usage` lives in its columns, so a copy written back is dropped. */
export function storedMetadata(metadata: Record<string, unknown>): string {
  if (!('usage' in metadata)) return JSON.stringify(metadata);
  const { usage: _usage, ...rest } = metadata;
  return JSON.stringify(rest);
}

export function toSessionRecord(row: SessionRow): SessionRecord {
  const lastOutcome = toOutcome(row.last_outcome);
  return {
    sessionKey: row.session_key,
    agentId: row.agent_id,
    tenantId: row.tenant_id,
    kind: toKind(row.kind),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    metadata: toMetadata(row),
    messageCount: row.message_count,
    ownerId: row.owner_id,
    // Absent while the session has not expired or been archived (and on a file migrated only up to before 29).
    ...(typeof row.expired_at === 'number' ? { expiredAt: row.expired_at } : {}),
    ...(typeof row.archived_at === 'number' ? { archivedAt: row.archived_at } : {}),
    ...(lastOutcome === undefined ? {} : { lastOutcome }),
  };
}

/** The role-specific fields of a message, kept in the `data` JSON column. */
function messageData(message: TranscriptMessage): string | null {
  if (message.role === 'assistant' && message.toolCalls !== undefined)
    return JSON.stringify({ toolCalls: message.toolCalls });
  if (message.role === 'tool') {
    return JSON.stringify({ toolCallId: message.toolCallId, toolName: message.toolName, isError: message.isError });
  }
  return null;
}

/** One message as its row is stored: role, content, data, created_at. */
export type MessageRowValues = readonly [role: string, content: string, data: string | null, createdAt: number];

/**
 * The columns of a message, taken when it is queued: later changes to the caller's objects are not written, and a
 * value the table would refuse fails the caller's call instead of the batch it would have joined.
 */
export function messageRowValues(message: TranscriptMessage): MessageRowValues {
  if (typeof message.content !== 'string' || typeof message.timestamp !== 'number') {
    throw new GatewayError('internal', 'A transcript message needs text content and a numeric timestamp to be stored', {
      role: message.role,
    });
  }
  return [message.role, message.content, messageData(message), message.timestamp];
}

export function toMessage(row: MessageRow): TranscriptMessage {
  const data = parseJsonObject(row.data);
  const timestamp = row.created_at;
  switch (row.role) {
    case 'system':
    case 'user':
      return { role: row.role, content: row.content, timestamp };
    case 'tool':
      return {
        role: 'tool',
        toolCallId: typeof data.toolCallId === 'string' ? data.toolCallId : '',
        toolName: typeof data.toolName === 'string' ? data.toolName : '',
        content: row.content,
        isError: data.isError === true,
        timestamp,
      };
    default: {
      const toolCalls = Array.isArray(data.toolCalls) ? (data.toolCalls as TranscriptToolCall[]) : undefined;
      return toolCalls === undefined
        ? { role: 'assistant', content: row.content, timestamp }
        : { role: 'assistant', content: row.content, toolCalls, timestamp };
    }
  }
}
