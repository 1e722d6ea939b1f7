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
