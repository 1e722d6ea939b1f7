// Agents: a table of all (CSV export) and a card each with its prompt, tools, skills and approval rules; create and
// edit with pickers (errors by their field), suspend, resume, delete; each agent's models and models.test.
import { useState } from 'preact/hooks';
import { AgentForm } from '../components/agent-form';
import { TableExport } from '../components/table-export';
import { ErrorNotice, KeyValues, Loading, Notice, PageTitle, Section } from '../components/ui';
import { formatDuration } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import {
  loadProviderChoices,
  loadServerChoices,
  loadToolChoices,
  mergeToolChoices,
  type AgentChoices,
} from '../lib/agent-choices';
import { listAgents, type AgentSummary } from '../lib/transcript';
import { useAsync } from '../lib/use-async';

/** Characters of the system prompt a card shows before "Show all". */
const PROMPT_PREVIEW_CHARS = 160;

type ApprovalRule = NonNullable<ResultOf<'agents.get'>['requireApproval']>[number];

/** A rule as one line: the tool, and each argument pattern it waits for. */
function describeRule(rule: ApprovalRule): string {
  if (typeof rule === 'string') return rule;
  const args = Object.entries(rule.args ?? {}).map(([name, pattern]) => `${name}=${pattern}`);
  return args.length === 0 ? rule.tool : `${rule.tool} (${args.join(', ')})`;
}

function Prompt({ text }: { text: string }) {
  if (text.length <= PROMPT_PREVIEW_CHARS) return <span class="prompt">{text}</span>;
  return (
    <details>
      <summary>
        <span class="prompt">{`${text.slice(0, PROMPT_PREVIEW_CHARS).trimEnd()}…`}</span>
      </summary>
      <span class="prompt">{text}</span>
    </details>
  );
}

function Names({ names, none }: { names: readonly string[]; none: string }) {
  return <span class="names">{names.length === 0 ? none : names.join(', ')}</span>;
}

function AgentDetail({
  agent,
  choices,
  onChanged,
}: {
  agent: AgentSummary;
  choices: AgentChoices;
  onChanged: (note: string) => void;
}) {
  const config = useAsync(() => call('agents.get', { agentId: agent.id }), [agent.id]);
  const models = useAsync(() => call('agent.getOperationModels', { agentId: agent.id }), [agent.id]);
  const [isEditing, setEditing] = useState(false);
  const [test, setTest] = useState<ResultOf<'models.test'> | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  async function run(action: () => Promise<string>) {
    setError(undefined);
    try {
      onChanged(await action());
    } catch (failure) {
      setError(failure);
    }
  }
  const isSuspended = agent.status === 'suspended';
  const chatModel = models.data?.operations.find((operation) => operation.operationType === 'chat');
  return (
    <Section
      title={`${agent.name} (${agent.id})`}
      actions={
        <>
          <button type="button" onClick={() => setEditing(!isEditing)} aria-expanded={isEditing}>
            Edit
          </button>
          <button
            type="button"
            onClick={() =>
              void run(
                async () => (
                  await call(isSuspended ? 'agents.resume' : 'agents.suspend', { agentId: agent.id }),
                  `${agent.id} ${isSuspended ? 'resumed' : 'suspended'}.`
                ),
              )
            }
          >
            {isSuspended ? 'Resume' : 'Suspend'}
          </button>
          <button
            type="button"
            class="danger"
            onClick={() =>
              void run(async () => {
                if (!confirm(`Delete agent ${agent.id}? Its sessions stay.`)) return 'Nothing changed.';
                await call('agents.delete', { agentId: agent.id });
                return `${agent.id} deleted.`;
              })
            }
          >
            Delete
          </button>
        </>
      }
    >
      <ErrorNotice error={error} />
      <p>
        Status: <span class={`badge ${isSuspended ? 'warn' : 'ok'}`}>{agent.status}</span>
      </p>
      {config.data === undefined ? null : (
        <KeyValues
          rows={[
            [
              'System prompt',
              config.data.systemPrompt === undefined || config.data.systemPrompt === '' ? (
                '—'
              ) : (
                <Prompt text={config.data.systemPrompt} />
              ),
            ],
            ['Tools', <Names key="tools" names={config.data.tools} none="none" />],
            [
              'Skills',
              config.data.skills === '*' ? (
                'every loaded skill'
              ) : (
                <Names key="skills" names={config.data.skills ?? []} none="none" />
              ),
            ],
            [
              'Needs approval',
              <Names key="approval" names={(config.data.requireApproval ?? []).map(describeRule)} none="nothing" />,
            ],
          ]}
        />
      )}
      <Loading isLoading={models.isLoading} />
      <ErrorNotice error={models.error} />
      {models.data === undefined ? null : (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Models per operation</caption>
            <thead>
              <tr>
                <th scope="col">Operation</th>
                <th scope="col">Model</th>
                <th scope="col">Provider</th>
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {models.data.operations.map((operation) => (
                <tr key={operation.operationType}>
                  <td>{operation.operationType}</td>
                  <td>{operation.model ?? '—'}</td>
                  <td>{operation.provider ?? '—'}</td>
                  <td>{operation.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="row">
        <button
          type="button"
          disabled={chatModel?.model == null}
          onClick={() =>
            void run(async () => {
              const result = await call('models.test', {
                model: chatModel?.model ?? '',
                ...(chatModel?.provider == null ? {} : { provider: chatModel.provider }),
              });
              setTest(result);
              return result.ok ? 'Model test passed.' : 'Model test failed.';
            })
          }
        >
          Test chat model
        </button>
        {test === undefined ? null : (
          <span role="status">
            {test.ok ? <span class="badge ok">ok</span> : <span class="badge bad">failed</span>} {test.provider},{' '}
            {formatDuration(test.latencyMs)}
            {test.error === undefined ? '' : `: ${test.error}`}
          </span>
        )}
      </div>
      {isEditing && config.data !== undefined ? (
        <AgentForm
          agentId={agent.id}
          initial={config.data}
          choices={choices}
          onSaved={(id) => {
            setEditing(false);
            config.reload();
            onChanged(`${id} saved.`);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
    </Section>
  );
}

export default function AgentsPage() {
  const agents = useAsync(listAgents, []);
  const providerChoices = useAsync(loadProviderChoices, []);
  const toolChoices = useAsync(loadToolChoices, []);
  const serverChoices = useAsync(loadServerChoices, []);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [isCreating, setCreating] = useState(false);
  const changed = (text: string) => {
    setNote(text);
    agents.reload();
  };
  const choiceData: AgentChoices = {
    providers: providerChoices.data?.providers ?? [],
    models: providerChoices.data?.models ?? {},
    tools: mergeToolChoices(toolChoices.data, serverChoices.data ?? []),
  };
  return (
    <>
      <PageTitle>Agents</PageTitle>
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <Section
        title="New agent"
        actions={
          <button type="button" aria-expanded={isCreating} onClick={() => setCreating(!isCreating)}>
            {isCreating ? 'Close' : 'New agent'}
          </button>
        }
      >
        {isCreating ? (
          <AgentForm
            choices={choiceData}
            onSaved={(id) => {
              setCreating(false);
              changed(`Agent ${id} created.`);
            }}
          />
        ) : (
          <p class="muted">Agents are saved to the config file (one commit each) and are live at once.</p>
        )}
      </Section>
      <Loading isLoading={agents.isLoading} />
      <ErrorNotice error={agents.error} />
      <ErrorNotice error={providerChoices.error} />
      <ErrorNotice error={toolChoices.error} />
      {agents.data === undefined || agents.data.length === 0 ? null : (
        <TableExport name="agents">
          <table>
            <caption class="sr-only">Agents</caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col">Model</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {agents.data.map((agent) => (
                <tr key={agent.id}>
                  <td>{agent.id}</td>
                  <td>{agent.name}</td>
                  <td>{agent.provider ?? 'default'}</td>
                  <td>{agent.model ?? 'default'}</td>
                  <td>{agent.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      )}
      {(agents.data ?? []).map((agent) => (
        <AgentDetail key={agent.id} agent={agent} choices={choiceData} onChanged={changed} />
      ))}
    </>
  );
}
