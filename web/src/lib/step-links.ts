// The incident report's next steps name RPC methods; the dashboard links the page that does the same instead.

/** A method a next step may name, the page that shows or does it, and the words the link reads. */
const METHOD_PAGES: Record<string, { page: string; text: string }> = {
  'obs.diagnostics': { page: 'observability', text: 'the diagnostics on Observability' },
  'obs.audit.query': { page: 'observability', text: 'the audit log' },
  'obs.trace.search': { page: 'sessions', text: 'Sessions' },
  'obs.explain': { page: 'sessions', text: "the session's incident report" },
  'config.history': { page: 'config', text: 'the config history' },
  'models.test': { page: 'agents', text: 'the model test on Agents' },
  'mcp.servers.list': { page: 'mcp', text: 'the MCP page' },
  'cron.runs': { page: 'scheduler', text: "the job's runs on Scheduler" },
  'memory.search': { page: 'memory', text: 'Memory search' },
  'session.list': { page: 'sessions', text: 'Sessions' },
  'session.compact': { page: 'sessions', text: 'Sessions' },
  'session.run_status': { page: 'sessions', text: 'Sessions' },
  'session.spawn': { page: 'chat', text: 'Chat' },
};

const METHOD_PATTERN = new RegExp(
  `\\b(${Object.keys(METHOD_PAGES)
    .map((name) => name.replace(/\./g, '\\.'))
    .join('|')})\\b`,
);

export type StepPart = string | { page: string; text: string };

/** The report's own field names, as the page shows them. */
const FIELD_WORDS: [string, string][] = [['failures[]', 'the failures listed below']];

/** The step split into plain text and page links, in order. */
export function stepParts(step: string): StepPart[] {
  const parts: StepPart[] = [];
  let rest = FIELD_WORDS.reduce((text, [field, words]) => text.replaceAll(field, words), step);
  for (let match = METHOD_PATTERN.exec(rest); match !== null; match = METHOD_PATTERN.exec(rest)) {
    const target = METHOD_PAGES[match[1] ?? ''];
    if (match.index > 0) parts.push(rest.slice(0, match.index));
    if (target !== undefined) parts.push(target);
    rest = rest.slice(match.index + match[0].length);
  }
  if (rest !== '') parts.push(rest);
  return parts;
}
