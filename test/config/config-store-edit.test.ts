// The raw-document edits behind the ConfigStore: merge patches, dotted sets, kept secrets, comment-preserving rendering.
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import {
  changedSections,
  keepSecrets,
  mergePatch,
  renderDocument,
  setPath,
  splitKey,
} from '../../src/config/config-edit.js';

describe('config edits', () => {
  it('merges like RFC 7386: objects key by key, null removes, lists replace', () => {
    const target = { a: { b: 1, c: [1, 2] }, d: 'x' };
    expect(mergePatch(target, { a: { c: [3], e: true }, d: null })).toEqual({ a: { b: 1, c: [3], e: true } });
    expect(target).toEqual({ a: { b: 1, c: [1, 2] }, d: 'x' });
    expect(() => mergePatch({}, JSON.parse('{"__proto__": {"x": 1}}'))).toThrow(/not allowed/);
  });

  it('sets dotted keys through objects and list positions without touching the input', () => {
    const root = { gateway: { tokens: [{ id: 'a' }] } };
    expect(setPath(root, splitKey('gateway', 'tokens.0.scopes'), ['rpc'])).toEqual({
      gateway: { tokens: [{ id: 'a', scopes: ['rpc'] }] },
    });
    expect(setPath(root, splitKey('gateway', 'web.enabled'), false)).toEqual({
      gateway: { tokens: [{ id: 'a' }], web: { enabled: false } },
    });
    expect(root).toEqual({ gateway: { tokens: [{ id: 'a' }] } });
    expect(() => splitKey('gateway', 'a..b')).toThrow(/empty segment/);
  });

  it('keeps stored secrets for "***", matching list items by id, and keeps ${ENV} references', () => {
    const previous = {
      tokens: [
        { id: 'a', secret: 'A' },
        { id: 'b', secret: 'B' },
      ],
      apiKey: '${KEY}',
    };
    const next = {
      tokens: [
        { id: 'b', secret: '***' },
        { id: 'a', secret: '***' },
      ],
      apiKey: 'resolved',
    };
    expect(keepSecrets(next, previous, { KEY: 'resolved' })).toEqual({
      tokens: [
        { id: 'b', secret: 'B' },
        { id: 'a', secret: 'A' },
      ],
      apiKey: '${KEY}',
    });
    expect(keepSecrets({ name: '***' }, { name: 'x' }, {})).toEqual({ name: '***' });
  });

  it('keeps a stored storage url (and its reference) when it comes back with the password masked', () => {
    const previous = { storage: { kind: 'postgres', url: 'postgres://app:s3cret@db:5432/gateway' } };
    expect(
      keepSecrets({ storage: { kind: 'postgres', url: 'postgres://app:***@db:5432/gateway' } }, previous, {}),
    ).toEqual(previous);
    const referenced = { storage: { kind: 'postgres', url: '${PG_URL}' } };
    const env = { PG_URL: 'postgres://app:s3cret@db/gateway' };
    expect(
      keepSecrets({ storage: { kind: 'postgres', url: 'postgres://app:***@db/gateway' } }, referenced, env),
    ).toEqual(referenced);
    // A URL that really changed is written as given.
    expect(
      keepSecrets({ storage: { kind: 'postgres', url: 'postgres://app:***@other/gateway' } }, previous, {}),
    ).toEqual({
      storage: { kind: 'postgres', url: 'postgres://app:***@other/gateway' },
    });
  });

  it('names the sections that changed', () => {
    expect(changedSections({ a: 1, b: { c: 1 } }, { b: { c: 2 }, d: 1 })).toEqual(['a', 'b', 'd']);
  });

  it('renders only the changed nodes and keeps comments', () => {
    const doc = parseDocument('# head\na: 1 # one\nb: { c: 2 }\nlist: [1, 2]\n');
    const text = renderDocument(doc, { a: 1, b: { c: 3 }, list: [1, 2, 3], added: 'x' });
    expect(text).toBe('# head\na: 1 # one\nb: { c: 3 }\nlist: [ 1, 2, 3 ]\nadded: x\n');
    expect(doc.toJS()).toEqual({ a: 1, b: { c: 2 }, list: [1, 2] });
  });

  it('falls back to a fresh document when aliases would spread an edit', () => {
    const doc = parseDocument('base: &b { x: 1 }\nother: *b\n');
    const text = renderDocument(doc, { base: { x: 2 }, other: { x: 1 } });
    expect(parse(text)).toEqual({ base: { x: 2 }, other: { x: 1 } });
  });
});
