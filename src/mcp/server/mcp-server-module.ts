// The gateway as an MCP server (issue 34): the capability module serving /mcp, its sessions, tools and list_changed.
import type { Logger } from 'pino';
import type { AgentRegistry, ToolRegistry } from '../../agents/index.js';
import type { CapabilityModule } from '../../capability.js';
import type { ConfigStore } from '../../config/index.js';
import type { AuditInput } from '../../obs/index.js';
import type { RequestAuth } from '../../server/index.js';
import type { TurnRunner } from '../../turns/index.js';
import { mcpSdk } from '../mcp-sdk-loader.js';
import { mcpRoutes } from './mcp-route.js';
import { createMcpSessions } from './mcp-sessions.js';
import { createMcpTools } from './mcp-tools.js';

export interface McpServerModuleDeps {
  auth: RequestAuth;
  config: Pick<ConfigStore, 'get' | 'onChange'>;
  agents: Pick<AgentRegistry, 'list' | 'defaultAgentId'>;
  tools: Pick<ToolRegistry, 'has' | 'specs' | 'execute'>;
  turns: TurnRunner;
  audit: { record(input: AuditInput): void };
  /** TokenService.onSecretRetired: a revoked or rotated token's sessions end, as its WebSockets do. */
  secretRetired: (listener: (clientId: string) => void) => () => void;
  version: string;
  now: () => number;
  log: Logger;
}

/** How often idle sessions are looked for; a session lives at most this much past mcp.server.sessionIdleMs. */
const SWEEP_INTERVAL_MS = 30_000;

export function createMcpServerModule(deps: McpServerModuleDeps): CapabilityModule {
  const { config, now, log } = deps;
  const settings = () => config.get().mcp.server;
  const tools = createMcpTools({ ...deps, exposeTools: () => settings().exposeTools });
  const serverInfo = { name: 'agent-gateway', version: deps.version };

  const sessions = createMcpSessions({
    limits: settings,
    now,
    log,
    newServer(session) {
      const { Server, ListToolsRequestSchema, CallToolRequestSchema } = mcpSdk();
      const server = new Server(serverInfo, { capabilities: { tools: { listChanged: true } } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() }));
      server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
        const inFlight = session.open.calls.get(extra.requestId);
        if (inFlight === undefined)
          return tools.call(request.params.name, request.params.arguments, session.caller, extra.signal);
        // Cancelled (notifications/cancelled) or its session closed: the SDK sends no answer, so its request is ended.
        extra.signal.addEventListener('abort', () => inFlight.drop(), { once: true });
        const signal = AbortSignal.any([extra.signal, inFlight.hangUp]);
        return tools.call(request.params.name, request.params.arguments, session.caller, signal);
      });
      return server;
    },
  });

  let sweep: NodeJS.Timeout | undefined;
  let stopFollowing: (() => void) | undefined;
  let stopRetiring: (() => void) | undefined;

  return {
    name: 'mcp-server',
    start() {
      tools.refresh();
      // Agents live in the config as exposeTools does: any change that alters the list reaches every live session.
      stopFollowing = config.onChange(() => {
        if (tools.refresh()) sessions.notifyToolsChanged();
      });
      stopRetiring = deps.secretRetired((clientId) => void sessions.endToken(clientId));
      sweep = setInterval(() => void sessions.sweep(), SWEEP_INTERVAL_MS);
      sweep.unref();
    },
    async stop() {
      stopFollowing?.();
      stopRetiring?.();
      clearInterval(sweep);
      await sessions.closeAll();
    },
    routes(scope) {
      // Open GET streams would hold the HTTP server's close until its grace period: they end first.
      scope.addHook('preClose', async () => sessions.closeAll());
      return mcpRoutes({ auth: deps.auth, sessions, log })(scope);
    },
  };
}
