// Dashboard end to end: the Graphs page — a graph defined through RPC is started from the page with vars, its tool node
// becomes completed live, its approval node waits (linked to the Approvals page) and the run is cancelled from the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

const GRAPH = {
  name: 'release',
  description: 'Reads the clock, then waits for a go-ahead',
  vars: { version: { type: 'string', default: '0.0' } },
  nodes: [
    { id: 'tick', type: 'tool', tool: 'current_time', args: {} },
    { id: 'publish', type: 'approval', needs: ['tick'], summary: 'Publish {{vars.version}}?' },
  ],
};

interface PendingApproval {
  toolName: string;
  args: { runId?: string; nodeId?: string; summary?: string };
}

describe('dashboard graphs', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  const rpc = async <T = Record<string, unknown>>(method: string, params: unknown = {}): Promise<T> => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as T;
  };

  it('starts a defined graph with vars, shows its nodes live and a waiting approval, and cancels the run', async () => {
    const { page } = world.browser;
    await rpc('graph.define', { definition: GRAPH });
    await openSignedIn(world, 'graphs');
    const definitions = page.getByRole('region', { name: 'Definitions' });
    const card = definitions.getByRole('listitem', { name: 'Graph release' });
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    expect(await card.textContent()).toContain('2 node(s)');
    expect(await card.textContent()).toContain('Reads the clock, then waits for a go-ahead');

    // Vars that are not an object are refused next to the field; nothing starts.
    const vars = card.getByLabel('Vars for release', { exact: true });
    await vars.fill('[1, 2]');
    await card.getByRole('button', { name: 'Run release' }).click();
    await expect.poll(() => card.getByText('Vars must be a JSON object.').count()).toBe(1);
    expect((await rpc<{ runs: unknown[] }>('graph.runs')).runs).toEqual([]);

    await vars.fill('{"version": "2.0"}');
    await card.getByRole('button', { name: 'Run release' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Started release: run ' }).count(), { timeout: 10_000 })
      .toBe(1);
    const [started] = (await rpc<{ runs: { runId: string }[] }>('graph.runs')).runs;
    const runId = started?.runId ?? '';
    expect(runId).not.toBe('');
    await expect.poll(() => new URL(page.url()).searchParams.get('run')).toBe(runId);

    // The run's DAG: tick in the first layer completes, publish in the second waits for an operator.
    const detail = page.getByRole('region', { name: `Run ${runId}` });
    const tick = detail.getByRole('listitem', { name: 'Node tick' });
    const publish = detail.getByRole('listitem', { name: 'Node publish' });
    await expect.poll(() => tick.locator('.badge').textContent(), { timeout: 10_000 }).toBe('completed');
    expect(await tick.textContent()).toContain('Attempts 1');
    await expect.poll(() => publish.locator('.badge').textContent(), { timeout: 10_000 }).toBe('waiting');
    expect(await publish.textContent()).toContain('needs tick');
    const layers = detail.getByRole('list', { name: 'Graph layers' });
    expect(await layers.locator(':scope > li').nth(0).textContent()).toContain('tick');
    expect(await layers.locator(':scope > li').nth(1).textContent()).toContain('publish');
    const approvalsLink = publish.getByRole('link', { name: 'decide on the Approvals page' });
    expect(await approvalsLink.getAttribute('href')).toBe('/app/approvals');
    // The waiting node is the request in the approvals queue, its summary rendered from the run's vars.
    const pending = await rpc<{ requests: PendingApproval[] }>('admin.approval.pending');
    expect(pending.requests).toContainEqual(
      expect.objectContaining({
        toolName: 'graph_approval',
        args: expect.objectContaining({ runId, nodeId: 'publish', summary: 'Publish 2.0?' }),
      }),
    );

    const runs = page.getByRole('region', { name: 'Recent runs' });
    const row = runs.getByRole('row').filter({ hasText: 'release' });
    await expect.poll(() => row.locator('.badge').textContent()).toBe('running');
    await capture(world, 'graphs');

    // The link leads to the Approvals page, where the waiting node's request is; back again to cancel the run.
    await approvalsLink.click();
    await expect.poll(() => page.getByRole('heading', { level: 1, name: 'Approvals' }).count()).toBe(1);
    const request = page.getByRole('listitem').filter({ hasText: 'graph_approval' });
    await expect.poll(() => request.count(), { timeout: 10_000 }).toBe(1);
    expect(await request.textContent()).toContain('Publish 2.0?');
    await page.goBack();
    await expect.poll(() => row.locator('.badge').textContent(), { timeout: 10_000 }).toBe('running');

    await row.getByRole('button', { name: `Cancel run ${runId}` }).click();
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: `Run ${runId} is cancelled.` })
          .count(),
      )
      .toBe(1);
    await expect.poll(() => row.locator('.badge').textContent(), { timeout: 10_000 }).toBe('cancelled');
    expect(await row.getByRole('button', { name: `Cancel run ${runId}` }).count()).toBe(0);
    await expect.poll(() => detail.locator('p .badge').first().textContent(), { timeout: 10_000 }).toBe('cancelled');
    expect(await rpc<{ state: string }>('graph.status', { runId })).toMatchObject({ state: 'cancelled' });

    expect(await approvalsLink.count()).toBe(0);
    expect(world.browser.problems).toEqual([]);
  }, 60_000);

  it('deletes a definition from the page', async () => {
    const { page } = world.browser;
    await rpc('graph.define', { definition: { name: 'scratch', nodes: [GRAPH.nodes[0]] } });
    await openSignedIn(world, 'graphs');
    const card = page.getByRole('listitem', { name: 'Graph scratch' });
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    await card.getByRole('button', { name: 'Delete scratch' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Deleted scratch.' }).count()).toBe(1);
    await expect.poll(() => card.count()).toBe(0);
    expect((await rpc<{ graphs: { name: string }[] }>('graph.list')).graphs.map((graph) => graph.name)).toEqual([
      'release',
    ]);
    expect(world.browser.problems).toEqual([]);
  });
});
