// The orchestrate tool end to end: a started gateway, the fake LLM's reply calling orchestrate with a script, the real
// sandbox, an MCP fixture's tools under the run's lease, and what the model, run.*, obs.explain and obs.fleet.health see.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import {
  adminCall,
  executeTurn,
  sessionKeyOf,
  startMcpGateway,
  stdioFixture,
  toolResultsOf,
} from '../support/mcp-gateway.js';

interface OrchestrateEntry {
  runId: string;
  leaseId?: string;
  outcome: string;
  exitCode: number;
  failureClass?: string;
  toolCalls: { tool: string; capability: string; decision: string; count: number }[];
  resultRefs: { count: number; bytes: number };
  savings?: { estSavedTokens: number; savedRatio: number };
}

interface Report {
  orchestrate?: OrchestrateEntry[];
  likelyRootCause: { code: string; detail: string };
}

interface RunEntry {
  runId: string;
  kind: string;
  status: string;
  error: string | null;
  sessionKey: string;
}

let llm: FakeLlm;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  harness = await startMcpGateway(llm, {
    mcp: { servers: { files: stdioFixture({ tools: ['echo', 'slow', 'big'] }) } },
    tools: ['orchestrate', 'current_time', 'mcp:files'],
    requireApproval: [{ tool: 'files__echo', args: { text: 'secret*' } }],
    // The tests poll run.list and admin.approval.pending while turns wait: more than the default 100 calls a minute.
    gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
});

/** The model's reply calls orchestrate with `args`; the turn's result and what the model got back from the tool. */
async function orchestrateTurn(peerId: string, args: Record<string, unknown>) {
  llm.script({ toolCalls: [{ name: 'orchestrate', arguments: args }] }, { text: 'done' });
  const turn = await executeTurn(harness, peerId, 'run the script');
  return { turn, output: JSON.parse(toolResultsOf(llm).at(-1) ?? 'null') as Record<string, unknown> };
}

const explain = async (peerId: string) =>
  (await adminCall(harness, 'obs.explain', { sessionKey: sessionKeyOf(peerId), depth: 'full' })) as Report;

const runsOf = async (peerId: string) =>
  ((await adminCall(harness, 'run.list', { kind: 'orchestrate' })) as { runs: RunEntry[] }).runs.filter(
    (run) => run.sessionKey === sessionKeyOf(peerId),
  );

const pendingApprovals = async () =>
  ((await adminCall(harness, 'admin.approval.pending')) as { requests: { id: string; sessionKey: string }[] }).requests;

/** Starts a turn whose script waits on an approval-gated call; resolves once the call waits for an operator. */
async function turnWaitingOnApproval(peerId: string, script: string) {
  llm.script({ toolCalls: [{ name: 'orchestrate', arguments: { script, timeoutMs: 60_000 } }] }, { text: 'done' });
  const turn = executeTurn(harness, peerId, 'run the script');
  await expect
    .poll(async () => (await pendingApprovals()).filter((request) => request.sessionKey === sessionKeyOf(peerId)), {
      timeout: 15_000,
    })
    .toHaveLength(1);
  const [run] = await runsOf(peerId);
  expect(run).toMatchObject({ kind: 'orchestrate', status: 'running' });
  return { turn, runId: run?.runId ?? '' };
}

describe('orchestrate', () => {
  it("keeps three tools' results out of the model's context and reports the savings", async () => {
    const script = [
      'const parts = [];',
      'for (let i = 0; i < 3; i++) parts.push(await tools.files__big({ chars: 10000 }));',
      'console.log("fetched", parts.length);',
      'return { total: parts.reduce((sum, part) => sum + part.length, 0) };',
    ].join('\n');
    const { turn, output } = await orchestrateTurn('savings', { script });
    expect(turn.finishReason).toBe('stop');
    expect(output).toMatchObject({
      exitCode: 0,
      result: { total: 30_000 },
      stdout: 'fetched 3\n',
      toolCalls: [{ tool: 'files__big', decision: 'allow', count: 3 }],
    });
    const nextRequest = JSON.stringify(llm.chatRequests().at(-1)?.body);
    expect(nextRequest).toContain('30000');
    expect(nextRequest).not.toContain('x'.repeat(100));

    const [entry] = (await explain('savings')).orchestrate ?? [];
    expect(entry).toMatchObject({
      runId: output.runId,
      outcome: 'success',
      exitCode: 0,
      toolCalls: [{ tool: 'files__big', capability: 'files__big', decision: 'allow', count: 3 }],
      resultRefs: { count: 3, bytes: 30_000 },
    });
    expect(entry?.leaseId).toEqual(expect.any(String));
    expect(entry?.savings?.estSavedTokens).toBeGreaterThan(7_000);
    expect(entry?.savings?.savedRatio).toBeGreaterThan(0.9);

    expect(await runsOf('savings')).toEqual([expect.objectContaining({ runId: output.runId, status: 'completed' })]);
    const run = (await adminCall(harness, 'run.get', { runId: output.runId })) as RunEntry;
    expect(run).toMatchObject({ kind: 'orchestrate', status: 'completed' });
  });

  it('denies a tool outside the lease and records the decision', async () => {
    const script = 'try { await tools.current_time({}); return "ran"; } catch (error) { return error.message; }';
    const { output } = await orchestrateTurn('deny', { script, capabilities: ['files__echo'] });
    expect(output).toMatchObject({
      exitCode: 0,
      result: expect.stringContaining('current_time was denied (not_leased)'),
      toolCalls: [{ tool: 'current_time', decision: 'deny', count: 1 }],
    });
    const report = await explain('deny');
    expect(report.orchestrate?.[0]?.toolCalls).toEqual([
      { tool: 'current_time', capability: 'current_time', decision: 'deny', count: 1 },
    ]);
    expect(report.likelyRootCause.code).toBe('orchestrate_failed');
  });

  it('gives a run no lease when no capability is granted: its calls are denied (lease_absent)', async () => {
    const { output } = await orchestrateTurn('no-lease', {
      script: 'return await tools.current_time({});',
      capabilities: ['not_an_agent_tool'],
    });
    expect(output).toMatchObject({
      failureClass: 'lease_absent',
      error: expect.stringContaining('current_time was denied (lease_absent)'),
      toolCalls: [{ tool: 'current_time', decision: 'deny', count: 1 }],
    });
    const [entry] = (await explain('no-lease')).orchestrate ?? [];
    expect(entry).toMatchObject({
      outcome: 'failure',
      failureClass: 'lease_absent',
      toolCalls: [{ tool: 'current_time', capability: 'current_time', decision: 'deny', count: 1 }],
    });
    expect(entry).not.toHaveProperty('leaseId');
  });

  it('reports a failing script as orchestrate_failed', async () => {
    const { output } = await orchestrateTurn('fails', { script: 'throw new Error("boom")' });
    expect(output).toMatchObject({ failureClass: 'nonzero_exit', error: expect.stringContaining('boom') });
    expect(output.exitCode).not.toBe(0);
    const report = await explain('fails');
    expect(report.orchestrate?.[0]).toMatchObject({ outcome: 'failure', failureClass: 'nonzero_exit' });
    expect(report.likelyRootCause).toMatchObject({ code: 'orchestrate_failed' });
    expect(await runsOf('fails')).toEqual([expect.objectContaining({ status: 'failed' })]);
  });

  it('trips the capability-denial breaker after three denials in a row and aborts the run', async () => {
    const script = [
      'for (let i = 0; i < 3; i++) { try { await tools.not_mine({}); } catch (error) {} }',
      'return "survived";',
    ].join('\n');
    const { output } = await orchestrateTurn('breaker', { script });
    expect(output.result).toBeUndefined();
    expect(output.exitCode).not.toBe(0);
    expect(output.toolCalls).toEqual([{ tool: 'not_mine', decision: 'deny', count: 3 }]);
    const [run] = await runsOf('breaker');
    expect(run).toMatchObject({ status: 'completed', error: expect.stringMatching(/denial breaker/) });
    const fleet = (await adminCall(harness, 'obs.fleet.health')) as {
      autonomy?: { denialBreakerTrips: number };
      findings: { code: string }[];
    };
    expect(fleet.autonomy?.denialBreakerTrips).toBeGreaterThanOrEqual(1);
    expect(fleet.findings.map((finding) => finding.code)).toContain('autonomy_denial_breaker');
  });

  it('holds an approval-gated call inside the script until an operator approves it', async () => {
    const script = 'return await tools.files__echo({ text: "secret plan" });';
    const { turn } = await turnWaitingOnApproval('approve', script);
    const [request] = (await pendingApprovals()).filter((entry) => entry.sessionKey === sessionKeyOf('approve'));
    await adminCall(harness, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect(await turn).toMatchObject({ finishReason: 'stop' });
    const output = JSON.parse(toolResultsOf(llm).at(-1) ?? 'null') as Record<string, unknown>;
    expect(output).toMatchObject({ exitCode: 0, result: 'secret plan' });
    expect((await explain('approve')).orchestrate?.[0]?.toolCalls).toEqual([
      { tool: 'files__echo', capability: 'files__echo', decision: 'allow', count: 1 },
      { tool: 'files__echo', capability: 'files__echo', decision: 'approval', count: 1 },
    ]);
  });

  it('lease.revoke mid-run rejects the pending call, denies later ones, and the run ends revoked', async () => {
    const script = [
      'let first; let second;',
      'try { await tools.files__echo({ text: "secret one" }); first = "ran"; } catch (error) { first = error.message; }',
      'try { await tools.current_time({}); second = "ran"; } catch (error) { second = error.message; }',
      'return { first, second };',
    ].join('\n');
    const { turn, runId } = await turnWaitingOnApproval('revoke', script);
    expect(await adminCall(harness, 'lease.revoke', { runId })).toEqual({ runId, status: 'revoked' });
    await turn;
    const output = JSON.parse(toolResultsOf(llm).at(-1) ?? 'null') as { result: { first: string; second: string } };
    expect(output.result.first).toMatch(/files__echo was denied \(revoked\)/);
    expect(output.result.second).toMatch(/current_time was denied \(revoked\)/);
    expect(await runsOf('revoke')).toEqual([
      expect.objectContaining({ status: 'revoked', error: expect.stringMatching(/lease\.revoke/) }),
    ]);
    expect((await pendingApprovals()).filter((entry) => entry.sessionKey === sessionKeyOf('revoke'))).toEqual([]);
  });

  it("lease.revoke by the live run's leaseId (from run.get) revokes it", async () => {
    const script =
      'try { await tools.files__echo({ text: "secret four" }); return "ran"; } catch (error) { return error.message; }';
    const { turn, runId } = await turnWaitingOnApproval('revoke-lease', script);
    const { leaseId } = (await adminCall(harness, 'run.get', { runId })) as { leaseId?: string };
    expect(leaseId).toEqual(expect.any(String));
    expect(await adminCall(harness, 'lease.revoke', { leaseId })).toEqual({ runId, status: 'revoked' });
    await turn;
    const output = JSON.parse(toolResultsOf(llm).at(-1) ?? 'null') as { result: string };
    expect(output.result).toMatch(/files__echo was denied \(revoked\)/);
    const ended = (await adminCall(harness, 'run.get', { runId })) as { status: string; leaseId?: string };
    expect(ended).toMatchObject({ status: 'revoked' });
    expect(ended).not.toHaveProperty('leaseId');
    expect((await explain('revoke-lease')).orchestrate?.[0]?.leaseId).toBe(leaseId);
  });

  it('run.kill mid-run kills the script child at once', async () => {
    const script = 'await tools.files__echo({ text: "secret two" }); return "finished";';
    const { turn, runId } = await turnWaitingOnApproval('kill', script);
    expect(await adminCall(harness, 'run.kill', { runId })).toEqual({ runId, status: 'revoked' });
    await turn;
    const output = JSON.parse(toolResultsOf(llm).at(-1) ?? 'null') as Record<string, unknown>;
    expect(output.result).toBeUndefined();
    expect(output.exitCode).not.toBe(0);
    expect(output.error).toMatch(/abort/);
    expect(await runsOf('kill')).toEqual([
      expect.objectContaining({ status: 'revoked', error: expect.stringMatching(/run\.kill/) }),
    ]);
  });

  it("a turn aborted by its client ends the script's run and its pending call", async () => {
    const script = 'await tools.files__echo({ text: "secret three" }); return "finished";';
    llm.script({ toolCalls: [{ name: 'orchestrate', arguments: { script, timeoutMs: 60_000 } }] });
    const client = new AbortController();
    const request = fetch(`${harness.url}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'agent.execute',
        params: {
          message: 'run the script',
          sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId: 'client-abort' },
        },
      }),
      signal: client.signal,
    }).catch(() => undefined);
    await expect
      .poll(
        async () => (await pendingApprovals()).filter((entry) => entry.sessionKey === sessionKeyOf('client-abort')),
        {
          timeout: 15_000,
          interval: 200,
        },
      )
      .toHaveLength(1);
    client.abort();
    await request;
    await expect
      .poll(async () => (await runsOf('client-abort')).map((run) => run.status), { timeout: 15_000, interval: 200 })
      .toEqual(['failed']);
    expect((await pendingApprovals()).filter((entry) => entry.sessionKey === sessionKeyOf('client-abort'))).toEqual([]);
  });

  it('lease.revoke takes a live lease id, and refuses an unknown one or both ids at once', async () => {
    const unknown = await callRpc(harness.url, harness.tokens.admin, 'lease.revoke', { leaseId: 'no-such-lease' });
    expect(unknown.error).toMatchObject({ data: { kind: 'not_found' } });
    const both = await callRpc(harness.url, harness.tokens.admin, 'lease.revoke', { runId: 'r', leaseId: 'l' });
    expect(both.error).toMatchObject({ data: { kind: 'invalid_params' } });
  });

  it('obs.fleet.health reports orchestrate_efficiency from the runs', async () => {
    await orchestrateTurn('fleet', { script: 'return (await tools.files__big({ chars: 8000 })).length;' });
    const fleet = (await adminCall(harness, 'obs.fleet.health')) as {
      findings: { code: string; count: number; detail: string }[];
    };
    const finding = fleet.findings.find((entry) => entry.code === 'orchestrate_efficiency');
    expect(finding?.count).toBeGreaterThanOrEqual(1);
    expect(finding?.detail).toMatch(/saved an estimated [1-9]\d* tokens/);
  });
});
