// The dashboard's pages: path segment, nav label and the chunk that renders it (loaded on first visit).
import type { ComponentType } from 'preact';

export interface PageEntry {
  path: string;
  label: string;
  load: () => Promise<{ default: ComponentType }>;
}

export const PAGES: readonly PageEntry[] = [
  { path: '', label: 'Overview', load: () => import('./pages/overview') },
  { path: 'chat', label: 'Chat', load: () => import('./pages/chat') },
  { path: 'sessions', label: 'Sessions', load: () => import('./pages/sessions') },
  { path: 'agents', label: 'Agents', load: () => import('./pages/agents') },
  { path: 'providers', label: 'Providers', load: () => import('./pages/providers') },
  { path: 'memory', label: 'Memory', load: () => import('./pages/memory') },
  { path: 'scheduler', label: 'Scheduler', load: () => import('./pages/scheduler') },
  { path: 'approvals', label: 'Approvals', load: () => import('./pages/approvals') },
  { path: 'tokens', label: 'Tokens', load: () => import('./pages/tokens') },
  { path: 'budgets', label: 'Budgets', load: () => import('./pages/budgets') },
  { path: 'cost', label: 'Cost', load: () => import('./pages/cost') },
  { path: 'config', label: 'Config', load: () => import('./pages/config') },
  { path: 'observability', label: 'Observability', load: () => import('./pages/observability') },
  { path: 'browser', label: 'Browser', load: () => import('./pages/browser') },
  { path: 'mcp', label: 'MCP', load: () => import('./pages/mcp') },
  { path: 'channels', label: 'Channels', load: () => import('./pages/channels') },
  { path: 'graphs', label: 'Graphs', load: () => import('./pages/graphs') },
  { path: 'skills', label: 'Skills', load: () => import('./pages/skills') },
];
