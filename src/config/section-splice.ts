// Keeps the exact text of the config sections an edit left alone: the yaml library re-prints every node it renders
// (`["*"]` becomes `[ "*" ]`, spacing before comments changes), so the rendered text of each unchanged top-level
// section is swapped back for the original's.
import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, parse, parseDocument } from 'yaml';

interface Section {
  key: string;
  text: string;
}

/** The text before the first section, and each top-level section's text up to the next one's key. */
function sectionsOf(text: string): { head: string; sections: Section[] } | undefined {
  const doc = parseDocument(text);
  // A flow map (a config written as JSON) has no per-section text to keep: it is rendered whole.
  if (doc.errors.length > 0 || !isMap(doc.contents) || doc.contents.flow === true) return undefined;
  const starts: { key: string; at: number }[] = [];
  for (const pair of doc.contents.items) {
    if (!isScalar(pair.key) || typeof pair.key.value !== 'string' || pair.key.range === undefined) return undefined;
    starts.push({ key: pair.key.value, at: pair.key.range[0] });
  }
  const first = starts[0];
  if (first === undefined) return undefined;
  const sections = starts.map((start, index) => ({
    key: start.key,
    text: text.slice(start.at, starts[index + 1]?.at ?? text.length),
  }));
  return { head: text.slice(0, first.at), sections };
}

const valueOf = (section: Section): unknown => (parse(section.text) as Record<string, unknown> | null)?.[section.key];

/**
 * `rendered` with each section whose value equals its value in `original` replaced by the original's text; `rendered`
 * itself when the two cannot be matched section by section or the result would not read back as `next`.
 */
export function keepUnchangedSections(original: string, rendered: string, next: unknown): string {
  const before = sectionsOf(original);
  const after = sectionsOf(rendered);
  if (before === undefined || after === undefined) return rendered;
  const originals = new Map(before.sections.map((section) => [section.key, section]));
  const pieces = after.sections.map((section) => {
    const kept = originals.get(section.key);
    if (kept === undefined || !isDeepStrictEqual(valueOf(kept), valueOf(section))) return section.text;
    return kept.text.endsWith('\n') ? kept.text : `${kept.text}\n`;
  });
  const text = `${before.head}${pieces.join('')}`;
  try {
    return isDeepStrictEqual(parse(text) ?? {}, next) ? text : rendered;
  } catch {
    return rendered;
  }
}

/** The blank and column-0 comment lines ending a section's slice: they belong to the section after it. */
function splitTail(text: string): { own: string; tail: string } {
  const lines = text.split(/(?<=\n)/);
  let cut = lines.length;
  while (cut > 0 && /^(#.*)?\s*$/.test(lines[cut - 1] ?? '')) cut -= 1;
  return { own: lines.slice(0, cut).join(''), tail: lines.slice(cut).join('') };
}

/** `text` with every non-blank line indented two spaces and a final newline. */
function indented(text: string): string {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return body.replace(/^(?=.*\S)/gm, '  ');
}

/**
 * A section's text in the file without its `key:` line, dedented: what the user edits. Undefined when the section is
 * not a block under a bare `key:` line, or the text would not read back as `value`.
 */
export function sectionBodyText(fileText: string, key: string, value: unknown): string | undefined {
  const section = sectionsOf(fileText)?.sections.find((candidate) => candidate.key === key);
  if (section === undefined) return undefined;
  const [first, ...rest] = splitTail(section.text).own.split(/(?<=\n)/);
  if (first === undefined || !/^[^:]*:[ \t]*\r?\n$/.test(first)) return undefined;
  const margins = rest.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const margin = Math.min(...margins);
  const body = rest.map((line) => line.slice(Math.min(margin, /^ */.exec(line)?.[0].length ?? 0))).join('');
  try {
    return isDeepStrictEqual(parse(body) ?? null, value ?? null) ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `rendered` with section `key` written as `bodies[i]` (the user's text, indented under `key:`), the first of them
 * that makes the whole file read back as `next`; `rendered` itself when none does. The comments and blank lines
 * before the next section stay where they were.
 */
export function withSectionText(rendered: string, key: string, bodies: readonly string[], next: unknown): string {
  const parts = sectionsOf(rendered);
  const index = parts?.sections.findIndex((section) => section.key === key) ?? -1;
  const current = parts?.sections[index];
  if (parts === undefined || current === undefined) return rendered;
  const { tail } = splitTail(current.text);
  for (const body of bodies) {
    const pieces = parts.sections.map((section, at) =>
      at === index ? `${key}:\n${indented(body)}${tail}` : section.text,
    );
    const text = `${parts.head}${pieces.join('')}`;
    try {
      if (isDeepStrictEqual(parse(text) ?? {}, next)) return text;
    } catch {
      continue;
    }
  }
  return rendered;
}
