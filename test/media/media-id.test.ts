// Media ids and content types: the id rule, ids named after their type, recorded and served types.
import { describe, expect, it } from 'vitest';
import { isMediaId, newMediaId, recordedContentType, servedContentType } from '../../src/media/media-id.js';

describe('media ids and content types', () => {
  it('accepts letters, digits, dot, hyphen and underscore, never a leading dot or anything else', () => {
    for (const id of ['a', 'f47ac10b-58cc-4372-a567-0e02b2c3d479.png', 'A_b-c.d.e', '9'])
      expect(isMediaId(id), id).toBe(true);
    for (const id of ['', '.', '..', '.hidden', '../x', 'a/b', 'a\\b', 'a b', 'a%2e', 'é', 'a\0b', 'a:b'])
      expect(isMediaId(id), id).toBe(false);
  });

  it('names a new id after the extension of its type, and leaves it bare for an unknown or missing type', () => {
    const newId = () => 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
    expect(newMediaId(newId, 'image/png')).toBe('f47ac10b-58cc-4372-a567-0e02b2c3d479.png');
    expect(newMediaId(newId, 'application/pdf')).toBe('f47ac10b-58cc-4372-a567-0e02b2c3d479.pdf');
    expect(newMediaId(newId, 'audio/ogg; codecs=opus')).toBe('f47ac10b-58cc-4372-a567-0e02b2c3d479.oga');
    expect(newMediaId(newId, 'application/x-made-up')).toBe('f47ac10b-58cc-4372-a567-0e02b2c3d479');
    expect(newMediaId(newId, null)).toBe('f47ac10b-58cc-4372-a567-0e02b2c3d479');
    expect(() => newMediaId(() => '../escape', 'image/png')).toThrow(TypeError);
  });

  it('records a type in lower case with its parameters, null for none, and refuses a malformed one', () => {
    expect(recordedContentType('Image/PNG')).toBe('image/png');
    expect(recordedContentType(' text/plain; charset=UTF-8 ')).toBe('text/plain; charset=UTF-8');
    expect(recordedContentType('')).toBeNull();
    for (const bad of ['png', 'text/plain\r\nX: y', 'a/b; c', `a/${'b'.repeat(300)}`, 'a/b c']) {
      expect(() => recordedContentType(bad), bad).toThrow(expect.objectContaining({ kind: 'invalid_params' }));
    }
  });

  it('serves the recorded type, else the extension’s, else application/octet-stream', () => {
    expect(servedContentType('x.png', 'text/plain')).toBe('text/plain');
    expect(servedContentType('x.png', null)).toBe('image/png');
    expect(servedContentType('x', null)).toBe('application/octet-stream');
  });
});
