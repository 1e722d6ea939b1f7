// Health signals and scrubbing: session_rebase always ingests at info; stored data is content-free.
import { afterEach, describe, expect, it } from 'vitest';
import { scrubObject } from '../../src/obs/scrub.js';
import { startObs, type ObsStack } from './support.js';

describe('obs health signals', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  it('stores session_rebase at info whatever severity it came with, and scrubs data', async () => {
    stack = startObs();
    stack.obs.signals.record({ kind: 'session_rebase', severity: 'error', data: { count: 1 } });
    stack.obs.signals.record({
      kind: 'health',
      severity: 'warning',
      data: { code: 'disk_full', message: 'the disk is full of secrets' },
    });
    await stack.obs.flush();
    const rows = stack.db.prepare('SELECT kind, severity, data FROM health_signals ORDER BY id').all();
    expect(rows).toEqual([
      { kind: 'session_rebase', severity: 'info', data: '{"count":1}' },
      { kind: 'health', severity: 'warning', data: '{"code":"disk_full"}' },
    ]);
  });
});

describe('obs scrubbing', () => {
  it('keeps counts, booleans and ids; drops content and credential keys; digests free text; bounds depth and size', () => {
    const scrubbed = scrubObject({
      inputTokens: 5,
      ok: true,
      toolName: 'fetch',
      prompt: 'tell me',
      apiKey: 'k',
      accessToken: 't',
      authorization: 'Bearer x',
      note: 'two words',
      nested: { deep: { deeper: { deepest: { gone: 1 } } }, list: Array.from({ length: 30 }, (_, n) => n) },
      nan: Number.NaN,
    });
    expect(scrubbed).toEqual({
      inputTokens: 5,
      ok: true,
      toolName: 'fetch',
      note: expect.stringMatching(/^sha256:/),
      nan: null,
      nested: { deep: { deeper: {} }, list: Array.from({ length: 20 }, (_, n) => n) },
    });
  });
});
