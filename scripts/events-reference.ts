// Renders docs/events.md from the EventMap (names, payloads, notes) and the source files that emit each event.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Where the generated reference is checked in. */
export const EVENTS_REFERENCE_PATH = fileURLToPath(new URL('../docs/events.md', import.meta.url));

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const EVENT_MAP_PATH = join(SRC, 'events', 'event-map.ts');

export interface EventEntry {
  name: string;
  payload: string;
  note: string;
  /** Source files (relative to the repository) that emit the event. */
  producers: string[];
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return Promise.resolve(entry.name.endsWith('.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

const parse = (path: string, text: string) => ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);

function readEventMap(text: string): Omit<EventEntry, 'producers'>[] {
  const file = parse(EVENT_MAP_PATH, text);
  const map = file.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === 'EventMap',
  );
  if (map === undefined) throw new Error('src/events/event-map.ts has no EventMap interface');
  return map.members.filter(ts.isPropertySignature).map((member) => {
    const name = ts.isStringLiteral(member.name) ? member.name.text : member.name.getText(file);
    const note = ts
      .getJSDocCommentsAndTags(member)
      .map((doc) => (typeof doc.comment === 'string' ? doc.comment : ''))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    return { name, payload: (member.type?.getText(file) ?? 'unknown').replace(/\s+/g, ' '), note };
  });
}

/** Calls that take an event name without emitting it: subscriptions and lookups. */
const CONSUMING_CALLS =
  /^(?:on|once|off|subscribe|unsubscribe|addListener|removeListener|has|get|includes|startsWith)$/;

/**
 * The event names a file emits: string literals (or either branch of a conditional) as the first argument of a call
 * that emits or hands the name to an emitter (`events.emit('x', …)`, `notices.notice('x', …)`), not of a subscription.
 */
function emittedNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const collect = (node: ts.Expression) => {
    if (ts.isStringLiteralLike(node)) names.add(node.text);
    else if (ts.isConditionalExpression(node)) {
      collect(node.whenTrue);
      collect(node.whenFalse);
    } else if (ts.isParenthesizedExpression(node)) collect(node.expression);
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const calleeName = ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(file);
      const [first] = node.arguments;
      if (!CONSUMING_CALLS.test(calleeName) && first !== undefined) collect(first);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

export async function collectEvents(): Promise<EventEntry[]> {
  const events = readEventMap(await readFile(EVENT_MAP_PATH, 'utf8'));
  const producers = new Map<string, string[]>(events.map((event) => [event.name, []]));
  for (const path of (await sourceFiles(SRC)).sort()) {
    if (path === EVENT_MAP_PATH) continue;
    for (const name of emittedNames(parse(path, await readFile(path, 'utf8'))))
      producers.get(name)?.push(relative(ROOT, path));
  }
  return events.map((event) => ({ ...event, producers: producers.get(event.name) ?? [] }));
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export async function generateEventsReference(): Promise<string> {
  const events = await collectEvents();
  const lines = [
    '# Events',
    '',
    'Generated from `src/events/event-map.ts` by `npm run docs:events`; do not edit by hand.',
    '',
    'Every event the gateway emits on its bus, as `/api/events` (SSE) and the dashboard see it: `{name, ts, payload}`.',
    'Payloads carry ids, counts and enums, never message bodies or secret values. Events about one owner’s resources',
    '(sessions, runs, jobs, graph runs) reach that token and admins only. "Emitted by" names the source files that',
    'emit the event.',
    '',
    '| Event | Payload | Emitted by | Notes |',
    '|---|---|---|---|',
    ...events.map(
      (event) =>
        `| \`${event.name}\` | \`${cell(event.payload)}\` | ${event.producers.map((path) => `\`${path}\``).join('<br>') || '—'} | ${cell(event.note)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
