// MCP: the configured MCP servers with their state, tool count and last error, a probe per server, and their tools.
import { useState } from 'preact/hooks';
import { ErrorNotice, Loading, Notice, PageTitle, Section } from '../components/ui';
import { formatTime } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { TableExport } from '../components/table-export';

type ServerState = ResultOf<'mcp.servers.list'>['servers'][number]['state'];

const STATE_BADGE: Record<ServerState, string> = {
  ready: 'ok',
  connecting: 'warn',
  failed: 'bad',
  disabled: 'warn',
};

function probeText(name: string, probe: ResultOf<'mcp.servers.test'>): string {
  if (!probe.ok) return `${name} failed its test: ${probe.error ?? 'no reason given'}`;
  const tools = probe.tools.length === 0 ? 'no tools' : probe.tools.join(', ');
  return `${name} answered in ${probe.latencyMs} ms with ${tools}.`;
}

export default function McpPage() {
  const servers = useAsync(() => call('mcp.servers.list'), []);
  const tools = useAsync(() => call('mcp.tools.list', {}), [servers.data]);
  const [probe, setProbe] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);

  async function test(name: string) {
    setError(undefined);
    setProbe(undefined);
    try {
      const result = await call('mcp.servers.test', { name });
      setProbe({ ok: result.ok, text: probeText(name, result) });
      servers.reload();
    } catch (failure) {
      setError(failure);
    }
  }

  const list = servers.data?.servers ?? [];
  const toolList = tools.data?.tools ?? [];
  return (
    <>
      <PageTitle>MCP</PageTitle>
      {probe === undefined ? null : <Notice tone={probe.ok ? 'ok' : 'error'}>{probe.text}</Notice>}
      <ErrorNotice error={error} />
      <Section title="Servers">
        <Loading isLoading={servers.isLoading && servers.data === undefined} />
        <ErrorNotice error={servers.error} />
        {servers.data !== undefined && list.length === 0 ? (
          <p class="muted">No MCP servers are configured (config key mcp.servers).</p>
        ) : null}
        <TableExport name="mcp-servers">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Transport</th>
                <th scope="col">State</th>
                <th scope="col">Tools</th>
                <th scope="col">Connected</th>
                <th scope="col">Last error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((server) => (
                <tr key={server.name}>
                  <td data-label="Name">{server.name}</td>
                  <td data-label="Transport">{server.transport}</td>
                  <td data-label="State">
                    <span class={`badge ${STATE_BADGE[server.state]}`}>{server.state}</span>
                  </td>
                  <td data-label="Tools">{server.tools}</td>
                  <td data-label="Connected">{formatTime(server.connectedAt)}</td>
                  <td data-label="Last error">{server.lastError ?? '—'}</td>
                  <td data-label="Actions">
                    <button type="button" disabled={server.state === 'disabled'} onClick={() => void test(server.name)}>
                      Test {server.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      </Section>
      <Section title="Tools">
        <ErrorNotice error={tools.error} />
        {tools.data !== undefined && toolList.length === 0 ? (
          <p class="muted">No tools: no server is ready yet, or their allow-lists leave none.</p>
        ) : null}
        <ul>
          {toolList.map((tool) => (
            <li key={`${tool.server}/${tool.name}`}>
              <code>{`${tool.server}__${tool.name}`}</code> <span class="muted">{tool.description}</span>
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
