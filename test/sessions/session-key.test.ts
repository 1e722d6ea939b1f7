// Session keys: parsing and formatting the string form, the object form's schema, and the kind rule.
import { describe, expect, it } from 'vitest';
import {
  deriveSessionKind,
  formatSessionKey,
  makeSessionKey,
  parseSessionKey,
  readSessionKey,
  sessionKeyObjectSchema,
  sessionKeyProblem,
  sessionKeyStringSchema,
  subAgentSessionKey,
} from '../../src/sessions/index.js';

describe('session keys', () => {
  it('parses three- and four-part keys', () => {
    expect(parseSessionKey('default:alice:ws')).toEqual({ tenantId: 'default', userId: 'alice', channelId: 'ws' });
    expect(parseSessionKey('acme:bob:telegram:42')).toEqual({
      tenantId: 'acme',
      userId: 'bob',
      channelId: 'telegram',
      peerId: '42',
    });
  });

  it('refuses a wrong part count with invalid_params naming the param', () => {
    for (const key of ['', 'alice', 'default:alice', 'a:b:c:d:e']) {
      expect(() => parseSessionKey(key, 'session_key')).toThrow(
        expect.objectContaining({
          kind: 'invalid_params',
          details: { param: 'session_key' },
          message: expect.stringContaining("'session_key' must be tenantId:userId:channelId[:peerId]"),
        }),
      );
    }
  });

  it('refuses empty parts, naming their position', () => {
    expect(() => parseSessionKey('default::ws')).toThrow(
      expect.objectContaining({
        kind: 'invalid_params',
        message: "Invalid params: 'key' has an empty part at position 2",
      }),
    );
    expect(() => parseSessionKey('default:alice:ws:')).toThrow(
      expect.objectContaining({ kind: 'invalid_params', details: { param: 'key' } }),
    );
    expect(() => parseSessionKey(`default:${'x'.repeat(300)}:ws`)).toThrow(
      expect.objectContaining({ kind: 'invalid_params' }),
    );
  });

  it('formats the object form, with the default tenant when none is given', () => {
    expect(formatSessionKey({ tenantId: 'acme', userId: 'bob', channelId: 'ws' })).toBe('acme:bob:ws');
    expect(formatSessionKey({ userId: 'openai-api', channelId: 'openai', peerId: 'chatcmpl-1' })).toBe(
      'default:openai-api:openai:chatcmpl-1',
    );
    expect(parseSessionKey(formatSessionKey({ tenantId: 't', userId: 'u', channelId: 'c', peerId: 'p' }))).toEqual({
      tenantId: 't',
      userId: 'u',
      channelId: 'c',
      peerId: 'p',
    });
  });

  it('refuses parts that contain a colon or are empty when formatting', () => {
    expect(() => formatSessionKey({ userId: 'a:b', channelId: 'ws' })).toThrow(
      expect.objectContaining({ kind: 'invalid_params', details: { param: 'sessionKey.userId' } }),
    );
    expect(() => formatSessionKey({ userId: 'a', channelId: '' })).toThrow(
      expect.objectContaining({ details: { param: 'sessionKey.channelId' } }),
    );
  });

  it('validates the object form strictly', () => {
    expect(sessionKeyObjectSchema.parse({ tenantId: 't', userId: 'u', channelId: 'c' })).toEqual({
      tenantId: 't',
      userId: 'u',
      channelId: 'c',
    });
    expect(sessionKeyObjectSchema.safeParse({ userId: 'u', channelId: 'c' }).success).toBe(false);
    expect(sessionKeyObjectSchema.safeParse({ tenantId: 't', userId: 'u', channelId: 'c', peerId: 'p' }).success).toBe(
      true,
    );
    expect(sessionKeyObjectSchema.safeParse({ tenantId: 't', userId: 'u', channelId: 'c', extra: 1 }).success).toBe(
      false,
    );
    expect(sessionKeyObjectSchema.safeParse({ tenantId: 't', userId: 'u:v', channelId: 'c' }).success).toBe(false);
    expect(sessionKeyObjectSchema.safeParse({ tenantId: 't', userId: 'u' }).success).toBe(false);
    expect(sessionKeyObjectSchema.safeParse({ tenantId: 't', userId: '', channelId: 'c' }).success).toBe(false);
  });

  it('validates the string form as a param schema', () => {
    expect(sessionKeyStringSchema.safeParse('default:alice:ws').success).toBe(true);
    const bad = sessionKeyStringSchema.safeParse('alice');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain('tenantId:userId:channelId');
  });

  it('refuses control and invisible format characters in a part, naming the param, so look-alike keys cannot coexist', () => {
    for (const hidden of ['\u0000', '\u0007', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\u2028']) {
      const key = `default:ali${hidden}ce:ws`;
      expect(sessionKeyProblem(key)).toMatch(/control or invisible character U\+[0-9A-F]{4} in part 2/);
      expect(() => parseSessionKey(key, 'sessionKey')).toThrow(
        expect.objectContaining({ kind: 'invalid_params', details: { param: 'sessionKey' } }),
      );
      expect(sessionKeyStringSchema.safeParse(key).success).toBe(false);
      expect(
        sessionKeyObjectSchema.safeParse({ tenantId: 'default', userId: `ali${hidden}ce`, channelId: 'ws' }).success,
      ).toBe(false);
      expect(() => formatSessionKey({ userId: 'alice', channelId: `w${hidden}s` })).toThrow(
        expect.objectContaining({ kind: 'invalid_params', details: { param: 'sessionKey.channelId' } }),
      );
    }
    // Letters of any script stay valid.
    expect(sessionKeyProblem('default:zoë:ws')).toBeUndefined();
    expect(sessionKeyProblem('default:李雷:ws')).toBeUndefined();
  });

  it('refuses a part not in Unicode NFC form: the composed and decomposed spellings would be two sessions', () => {
    const decomposed = 'zoe\u0308';
    expect(sessionKeyProblem(`default:${decomposed}:ws`)).toMatch(/part 2 is not in Unicode NFC form/);
    expect(sessionKeyObjectSchema.safeParse({ tenantId: 'default', userId: decomposed, channelId: 'ws' }).success).toBe(
      false,
    );
    expect(sessionKeyProblem(`default:${decomposed.normalize('NFC')}:ws`)).toBeUndefined();
  });

  it('derives the kind: sub-agent from metadata, group from metadata or channel, else dm', () => {
    const parts = parseSessionKey('default:alice:ws');
    expect(deriveSessionKind(parts)).toBe('dm');
    expect(deriveSessionKind(parts, { kind: 'sub-agent' })).toBe('sub-agent');
    expect(deriveSessionKind(parts, { kind: 'group' })).toBe('group');
    expect(deriveSessionKind(parts, { isGroup: true })).toBe('group');
    expect(deriveSessionKind(parseSessionKey('default:alice:group-42'))).toBe('group');
    expect(deriveSessionKind(parseSessionKey('default:alice:subagent:run-1'))).toBe('dm');
  });

  it('builds the sub-agent key from the parent tenant and user', () => {
    expect(subAgentSessionKey(parseSessionKey('acme:bob:ws:peer'), 'run-7')).toEqual({
      sessionKey: 'acme:bob:subagent:run-7',
      keyParts: { tenantId: 'acme', userId: 'bob', channelId: 'subagent', peerId: 'run-7' },
    });
  });

  it('reads a key into both forms once, and makes one from its parts with the default tenant', () => {
    expect(readSessionKey('acme:bob:telegram:42', 'sessionKey')).toEqual({
      sessionKey: 'acme:bob:telegram:42',
      keyParts: { tenantId: 'acme', userId: 'bob', channelId: 'telegram', peerId: '42' },
    });
    expect(() => readSessionKey('acme:bob', 'sessionKey')).toThrow(
      expect.objectContaining({ kind: 'invalid_params', details: { param: 'sessionKey' } }),
    );
    expect(makeSessionKey({ userId: 'bob', channelId: 'rest' })).toEqual({
      sessionKey: 'default:bob:rest',
      keyParts: { tenantId: 'default', userId: 'bob', channelId: 'rest' },
    });
    expect(() => makeSessionKey({ userId: 'b:ob', channelId: 'rest' })).toThrow(
      expect.objectContaining({ kind: 'invalid_params', details: { param: 'sessionKey.userId' } }),
    );
  });
});
