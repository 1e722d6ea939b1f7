// The Block Kit messages of an approval request in Slack: the request with approve/deny buttons carrying the
// request id, and the settled version (buttons gone, who decided shown) that chat.update puts in its place.
import type { ApprovalPrompt } from '../types.js';
import { APPROVE_ACTION, DENY_ACTION } from './inbound.js';

/** Slack's limit for a section's text is 3,000 characters; the summary is cut well before it. */
const MAX_SUMMARY_CHARS = 2_500;

/** Slack reads &, < and > as markup (links, @channel); text from agents and tools is shown as typed. */
export function escapeSlackText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function requestSection(prompt: ApprovalPrompt) {
  const summary = escapeSlackText(cut(prompt.summary, MAX_SUMMARY_CHARS));
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: `*Approval needed:* \`${escapeSlackText(prompt.toolName)}\`\n${summary}` },
  };
}

function context(text: string) {
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}

export function approvalRequestMessage(prompt: ApprovalPrompt) {
  const code = escapeSlackText(prompt.code);
  return {
    text: `Approval needed: ${escapeSlackText(prompt.toolName)} (code ${code})`,
    blocks: [
      requestSection(prompt),
      context(`Request code ${code}`),
      {
        type: 'actions',
        block_id: 'gateway_approval',
        elements: [
          {
            type: 'button',
            action_id: APPROVE_ACTION,
            style: 'primary',
            text: { type: 'plain_text', text: 'Approve' },
            value: prompt.requestId,
          },
          {
            type: 'button',
            action_id: DENY_ACTION,
            style: 'danger',
            text: { type: 'plain_text', text: 'Deny' },
            value: prompt.requestId,
          },
        ],
      },
    ],
  };
}

export function approvalSettledMessage(prompt: ApprovalPrompt & { approved: boolean; by: string }) {
  const outcome = `${prompt.approved ? 'Approved' : 'Denied'} by ${escapeSlackText(prompt.by)}`;
  return {
    text: `${escapeSlackText(prompt.toolName)}: ${outcome}`,
    blocks: [requestSection(prompt), context(`${prompt.approved ? ':white_check_mark:' : ':no_entry:'} ${outcome}`)],
  };
}
