// Approvals: tool calls waiting for an operator, approved or denied (with a reason) here, and the decisions so far;
// both follow approval events live.
import { useEffect, useState } from 'preact/hooks';
import { ApprovalHistory } from '../components/approval-history';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Section } from '../components/ui';
import { formatTime } from '../lib/format';
import { subscribeEvents } from '../lib/live-events';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';

type PendingRequest = ResultOf<'admin.approval.pending'>['requests'][number];

export default function ApprovalsPage() {
  const pending = useAsync(() => call('admin.approval.pending'), []);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const { reload } = pending;
  useEffect(() => subscribeEvents((event) => event.name.startsWith('approval:') && reload()), [reload]);

  async function resolve(request: PendingRequest, approved: boolean) {
    setError(undefined);
    const reason = (reasons[request.id] ?? '').trim();
    try {
      await call('admin.approval.resolve', {
        id: request.id,
        approved,
        ...(approved || reason === '' ? {} : { reason }),
      });
      setNote(`${request.toolName} ${approved ? 'approved' : 'denied'}.`);
      reload();
    } catch (failure) {
      setError(failure);
    }
  }

  const requests = pending.data?.requests ?? [];
  return (
    <>
      <PageTitle>Approvals</PageTitle>
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <ErrorNotice error={error} />
      <Section title="Pending tool calls">
        <Loading isLoading={pending.isLoading && pending.data === undefined} />
        <ErrorNotice error={pending.error} />
        {pending.data !== undefined && requests.length === 0 ? (
          <p class="muted">Nothing is waiting for a decision.</p>
        ) : null}
        <ul class="stack" style={{ listStyle: 'none', padding: 0 }}>
          {requests.map((request) => (
            <li key={request.id} class="card" aria-label={`${request.toolName} for ${request.agentId}`}>
              <p>
                <strong>{request.toolName}</strong> requested by agent <strong>{request.agentId}</strong> in{' '}
                <code>{request.sessionKey}</code>
              </p>
              <p class="muted">
                Asked {formatTime(request.requestedAt)} by {request.requestedBy};{' '}
                {request.expiresAt === null ? 'waits until decided' : `expires ${formatTime(request.expiresAt)}`}
              </p>
              <pre>{JSON.stringify(request.args, null, 2)}</pre>
              <Field id={`deny-reason-${request.id.replace(/[^\w-]/g, '_')}`} label="Reason for a denial (optional)">
                {(props) => (
                  <input
                    {...props}
                    maxLength={500}
                    value={reasons[request.id] ?? ''}
                    onInput={(event) => {
                      const text = event.currentTarget.value;
                      setReasons((current) => ({ ...current, [request.id]: text }));
                    }}
                  />
                )}
              </Field>
              <div class="row">
                <button type="button" class="primary" onClick={() => void resolve(request, true)}>
                  Approve
                </button>
                <button type="button" class="danger" onClick={() => void resolve(request, false)}>
                  Deny
                </button>
              </div>
            </li>
          ))}
        </ul>
      </Section>
      <ApprovalHistory />
    </>
  );
}
