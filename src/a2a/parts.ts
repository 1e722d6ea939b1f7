// What an incoming A2A message says, as the text a turn is given: text parts as they are, data parts as JSON, within
// the a2a.limits bounds; and the parts, messages and artifacts the gateway answers with.
import { Role, type Artifact, type Message, type Part } from '@a2a-js/sdk';
import { a2aMessageEmpty, a2aMessageTooLong, a2aPartNotSupported, a2aTooManyParts } from '../errors.js';

export interface MessageLimits {
  maxMessageParts: number;
  maxMessageChars: number;
}

/** The text of `message` for a turn; throws (invalid params, content type not supported) past the limits. */
export function messageText(message: Message, limits: MessageLimits): string {
  const { parts } = message;
  if (parts.length > limits.maxMessageParts) throw a2aTooManyParts(parts.length, limits.maxMessageParts);
  const texts: string[] = [];
  let chars = 0;
  parts.forEach((part, index) => {
    const { content } = part;
    let text: string;
    if (content?.$case === 'text') text = content.value;
    else if (content?.$case === 'data') text = JSON.stringify(content.value ?? null);
    else throw a2aPartNotSupported(index);
    chars += text.length;
    if (chars > limits.maxMessageChars) throw a2aMessageTooLong(chars, limits.maxMessageChars);
    texts.push(text);
  });
  const text = texts.join('\n');
  if (text.trim() === '') throw a2aMessageEmpty();
  return text;
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function agentMessage(messageId: string, taskId: string, contextId: string, text: string): Message {
  return {
    messageId,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The one artifact of a task: the agent's reply. */
export const REPLY_ARTIFACT_ID = 'reply';

export function replyArtifact(text: string): Artifact {
  return {
    artifactId: REPLY_ARTIFACT_ID,
    name: 'reply',
    description: "The agent's reply",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/** `text` cut to `maxChars`, saying how much was left out. */
export function capText(text: string, maxChars: number): string {
  return text.length <= maxChars
    ? text
    : `${text.slice(0, maxChars)}… [truncated ${text.length - maxChars} characters (a2a.limits.maxArtifactChars)]`;
}
