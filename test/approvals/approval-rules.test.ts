// requireApproval rules, the argument digest and the approvals config section.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requiresApproval } from '../../src/approvals/approval-rules.js';
import { argsDigest, canonicalJson } from '../../src/approvals/index.js';
import { validateConfig } from '../../src/config/index.js';

describe('requireApproval rules', () => {
  it('gates a tool named plainly, whatever its arguments', () => {
    expect(requiresApproval(['shell'], 'shell', { command: 'ls' })).toBe(true);
    expect(requiresApproval(['shell'], 'shell_safe', {})).toBe(false);
  });

  it('gates a tool with argument patterns only when every listed argument matches the whole value', () => {
    const rules = [{ tool: 'delete_file', args: { path: '/etc/*', mode: 'force' } }];
    expect(requiresApproval(rules, 'delete_file', { path: '/etc/passwd', mode: 'force' })).toBe(true);
    expect(requiresApproval(rules, 'delete_file', { path: '/etc/passwd', mode: 'soft' })).toBe(false);
    expect(requiresApproval(rules, 'delete_file', { path: '/home/etc/x', mode: 'force' })).toBe(false);
    expect(requiresApproval(rules, 'delete_file', { path: '/etc/x' })).toBe(false);
    expect(requiresApproval(rules, 'delete_file', 'not an object')).toBe(false);
    expect(requiresApproval([{ tool: 'scale', args: { replicas: '1*' } }], 'scale', { replicas: 12 })).toBe(true);
    expect(requiresApproval([{ tool: 'x', args: { p: 'a*b*c' } }], 'x', { p: 'abc' })).toBe(true);
    expect(requiresApproval([{ tool: 'x', args: { p: 'a*b*c' } }], 'x', { p: 'acb' })).toBe(false);
    expect(requiresApproval([{ tool: 'x', args: { p: 'ab*ba' } }], 'x', { p: 'aba' })).toBe(false);
    expect(requiresApproval([{ tool: 'delete_file' }], 'delete_file', {})).toBe(true);
  });
});

describe('argument digest', () => {
  it('is the sha256 of JSON with keys sorted at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}',
    );
    expect(argsDigest({ b: 1, a: 2 })).toBe(createHash('sha256').update('{"a":2,"b":1}').digest('hex'));
    expect(argsDigest({ a: 2, b: 1 })).toBe(argsDigest({ b: 1, a: 2 }));
    expect(argsDigest({ path: '/a' })).not.toBe(argsDigest({ path: '/b' }));
  });
});

describe('approvals config', () => {
  it('defaults to a 5 minute timeout, a 10 minute denial cache, a breaker of 3 and 10 / 100 waiting per session / token', () => {
    expect(validateConfig({}, 'test').approvals).toEqual({
      timeoutMs: 300_000,
      denialCacheMs: 600_000,
      denialBreakerThreshold: 3,
      maxPendingPerSession: 10,
      maxPendingPerOwner: 100,
    });
  });

  it('accepts timeoutMs 0 and refuses bad values naming the key', () => {
    expect(validateConfig({ approvals: { timeoutMs: 0 } }, 'test').approvals.timeoutMs).toBe(0);
    expect(() => validateConfig({ approvals: { timeoutMs: -1 } }, 'test')).toThrow(/approvals\.timeoutMs/);
    expect(() => validateConfig({ approvals: { denialCacheMs: 2_147_483_648 } }, 'test')).toThrow(
      /approvals\.denialCacheMs/,
    );
    expect(() => validateConfig({ approvals: { denialBreakerThreshold: 0 } }, 'test')).toThrow(
      /approvals\.denialBreakerThreshold/,
    );
    expect(() => validateConfig({ approvals: { extra: 1 } }, 'test')).toThrow(/approvals/);
  });

  it('takes tool names and {tool, args} rules in agents.<id>.requireApproval', () => {
    const config = validateConfig(
      {
        agents: { ops: { name: 'Ops', requireApproval: ['shell', { tool: 'delete_file', args: { path: '/etc/*' } }] } },
      },
      'test',
    );
    expect(config.agents.ops?.requireApproval).toEqual(['shell', { tool: 'delete_file', args: { path: '/etc/*' } }]);
    expect(validateConfig({ agents: { ops: { name: 'Ops' } } }, 'test').agents.ops?.requireApproval).toEqual([]);
    expect(() =>
      validateConfig({ agents: { ops: { name: 'Ops', requireApproval: [{ tool: 'x', pattern: 'y' }] } } }, 'test'),
    ).toThrow(/agents\.ops\.requireApproval/);
  });
});
