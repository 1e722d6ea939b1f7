// Rendering an edit into the config file: the sections the edit leaves alone keep their exact text (comments,
// flow lists, quoting, spacing), only the changed sections are written anew.
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { renderDocument } from '../../src/config/config-edit.js';

const SOURCE = `# Written by hand.
gateway:
  port: 8080   # spaced on purpose
  cors: { origins: ["*"] }

# Agents below.
agents:
  default: { name: "Assistant", tools: ['current_time'] }
obs:
  retentionDays: 30
`;

describe('config rendering', () => {
  it('keeps untouched sections byte-identical when another section changes', () => {
    const doc = parseDocument(SOURCE);
    const next = { ...(parse(SOURCE) as Record<string, unknown>), obs: { retentionDays: 7 } };
    const text = renderDocument(doc, next, SOURCE);
    expect(text).toBe(SOURCE.replace('retentionDays: 30', 'retentionDays: 7'));
  });

  it('renders a config written as JSON (a flow map) whole, as readable YAML holding the change', () => {
    const json = `${JSON.stringify({ gateway: { port: 8080 }, obs: { retentionDays: 30 } }, null, 2)}\n`;
    const next = { gateway: { port: 8080 }, obs: { retentionDays: 7 } };
    expect(parse(renderDocument(parseDocument(json), next, json))).toEqual(next);
  });

  it('renders a changed section anew and keeps the ones before and after it as written', () => {
    const doc = parseDocument(SOURCE);
    const source = parse(SOURCE) as Record<string, unknown>;
    const next = { ...source, agents: { default: { name: 'Helper', tools: ['current_time'] } } };
    const text = renderDocument(doc, next, SOURCE);
    expect(parse(text)).toEqual(next);
    expect(text.startsWith(SOURCE.slice(0, SOURCE.indexOf('agents:')))).toBe(true);
    expect(text.endsWith('obs:\n  retentionDays: 30\n')).toBe(true);
  });
});
