// Channels: the chat connections (Telegram, Slack, email) with their state, last activity, counters and last error; a
// live test per connection, and enable or disable (a config change, applied at once).
import { useState } from 'preact/hooks';
import { ErrorNotice, Loading, Notice, PageTitle, Section } from '../components/ui';
import { formatTime } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { TableExport } from '../components/table-export';

type Channel = ResultOf<'channels.list'>['channels'][number];

const STATE_BADGE: Record<string, string> = {
  connected: 'ok',
  connecting: 'warn',
  degraded: 'warn',
  disconnected: 'warn',
  disabled: 'warn',
  failed: 'bad',
};

function countsText(channel: Channel): string {
  return `${channel.received} in · ${channel.sent} out · ${channel.ignored} ignored · ${channel.failedDeliveries} failed`;
}

export default function ChannelsPage() {
  const channels = useAsync(() => call('channels.list'), []);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);

  async function act(run: () => Promise<{ ok: boolean; text: string }>) {
    setError(undefined);
    setNotice(undefined);
    try {
      setNotice(await run());
      channels.reload();
    } catch (failure) {
      setError(failure);
    }
  }
  const test = (id: string) =>
    act(async () => {
      const result = await call('channels.test', { id });
      return { ok: result.ok, text: result.ok ? `${id} answered: ${result.detail}` : `${id} failed: ${result.detail}` };
    });
  const setEnabled = (id: string, enabled: boolean) =>
    act(async () => {
      await call('config.set', { section: 'channels', key: `${id}.enabled`, value: enabled });
      return { ok: true, text: `${enabled ? 'Enabled' : 'Disabled'} ${id}.` };
    });

  const list = channels.data?.channels ?? [];
  return (
    <>
      <PageTitle>Channels</PageTitle>
      {notice === undefined ? null : <Notice tone={notice.ok ? 'ok' : 'error'}>{notice.text}</Notice>}
      <ErrorNotice error={error} />
      <Section
        title="Connections"
        actions={
          <button type="button" onClick={() => channels.reload()}>
            Refresh
          </button>
        }
      >
        <Loading isLoading={channels.isLoading && channels.data === undefined} />
        <ErrorNotice error={channels.error} />
        {channels.data !== undefined && list.length === 0 ? (
          <p class="muted">No chat connections are configured (config key channels).</p>
        ) : null}
        <TableExport name="channels">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Connection</th>
                <th scope="col">Kind</th>
                <th scope="col">Agent</th>
                <th scope="col">State</th>
                <th scope="col">Last activity</th>
                <th scope="col">Messages</th>
                <th scope="col">Last error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((channel) => (
                <tr key={channel.id} aria-label={`Channel ${channel.id}`}>
                  <td data-label="Connection">{channel.id}</td>
                  <td data-label="Kind">{channel.kind}</td>
                  <td data-label="Agent">{channel.agentId}</td>
                  <td data-label="State">
                    <span class={`badge ${STATE_BADGE[channel.state] ?? 'warn'}`}>{channel.state}</span>
                  </td>
                  <td data-label="Last activity">{formatTime(channel.lastActivityAt)}</td>
                  <td data-label="Messages">{countsText(channel)}</td>
                  <td data-label="Last error">{channel.error ?? '—'}</td>
                  <td data-label="Actions">
                    <div class="actions">
                      <button type="button" disabled={!channel.enabled} onClick={() => void test(channel.id)}>
                        Test {channel.id}
                      </button>
                      <button type="button" onClick={() => void setEnabled(channel.id, !channel.enabled)}>
                        {channel.enabled ? `Disable ${channel.id}` : `Enable ${channel.id}`}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      </Section>
    </>
  );
}
