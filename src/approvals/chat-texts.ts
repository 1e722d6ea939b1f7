// What the chat is told about an approval request: who decided it, and why the system ended one nobody decided.

/** `resolvedBy` of an answer given in a chat: `channel:<channelId>:<senderId>`. */
export const CHANNEL_RESOLVER_PREFIX = 'channel:';

/** How a resolver reads in a chat: a chat operator by their platform id, the system as "the gateway". */
export function resolverName(resolvedBy: string): string {
  if (resolvedBy.startsWith('system:')) return 'the gateway';
  if (resolvedBy.startsWith(CHANNEL_RESOLVER_PREFIX)) {
    const [channelId = '', ...sender] = resolvedBy.slice(CHANNEL_RESOLVER_PREFIX.length).split(':');
    return `${sender.join(':')} (in ${channelId})`;
  }
  return resolvedBy;
}

const ENDINGS: Record<string, string> = {
  'system:restart': 'Cancelled: the gateway restarted before a decision — ask again.',
  'system:cancelled': 'Cancelled: the turn ended before a decision — ask again.',
  'system:shutdown': 'Cancelled: the gateway shut down before a decision — ask again.',
  'system:timeout': 'Denied: no decision came in time — ask again.',
};

/** The message a chat gets when the system, not an operator, ended its request. */
export function chatNotice(resolvedBy: string, toolName: string, code?: string): string {
  const ending = ENDINGS[resolvedBy] ?? 'Cancelled by the gateway before a decision — ask again.';
  return `${ending} (${toolName}${code === undefined ? '' : `, code ${code}`})`;
}
