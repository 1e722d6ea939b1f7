// budgets.* methods: the configured budgets with their current window's usage (admin), adding, replacing and removing
// one through the config store (hot-applied, committed), and a token's own budgets (budgets.mine, rpc).
import { z } from 'zod';
import {
  budgetsConfigSchema,
  DEFAULT_TENANT,
  isForbiddenKey,
  type BudgetConfig,
  type ConfigStore,
} from '../config/index.js';
import { budgetNotFound, budgetScopeForbidden } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';
import { toMicroUsd } from './applicable.js';
import type { BudgetAmount, BudgetLedger, BudgetUsage } from './types.js';
import { windowAt } from './windows.js';

/** One entry of the `budgets:` section, as the config validates it: the params reuse its fields and bounds. */
const entry = budgetsConfigSchema.unwrap().element;
const { scope: budgetScope } = entry.shape;

/** What budgets.set takes: the config entry's fields as given, nothing defaulted, so the file holds what was sent. */
const budgetParams = z
  .strictObject({
    // An id names the budget in maps and events; the prototype names are refused before anything is written.
    id: entry.shape.id.refine((id) => !isForbiddenKey(id), {
      error: (issue) => `'${String(issue.input)}' is not allowed`,
    }),
    scope: budgetScope,
    window: entry.shape.window.unwrap().optional(),
    maxCostUsd: entry.shape.maxCostUsd,
    maxTokens: entry.shape.maxTokens,
    action: entry.shape.action.unwrap().optional(),
    warnAtFraction: entry.shape.warnAtFraction.unwrap().optional(),
  })
  .refine((budget) => budget.maxCostUsd !== undefined || budget.maxTokens !== undefined, {
    message: 'a budget needs maxCostUsd, maxTokens or both',
    path: ['maxCostUsd'],
  });

export interface BudgetMethodsDeps {
  config: Pick<ConfigStore, 'get' | 'update'>;
  /** Only its `usage` is read: reservations and settlements are the model-call gate's. */
  ledger: Pick<BudgetLedger, 'usage'>;
  /** The tenants besides `default` a token is given (config `gateway.tokens[].tenants`). */
  tenantsOf: (tokenId: string) => readonly string[];
  now: () => number;
}

/** Where a budget stands in its window: `warning` from its warnAtFraction, `exhausted` at a limit. */
type BudgetState = 'ok' | 'warning' | 'exhausted';

/** A budget as the methods answer it: its config, its window now, what is used and reserved, and how much of each limit. */
interface BudgetView {
  id: string;
  scope: string;
  window: BudgetConfig['window'];
  action: 'block' | 'warn';
  warnAtFraction: number;
  maxCostUsd?: number;
  maxTokens?: number;
  windowStart: number;
  windowEnd: number;
  /** Cost in integer micro-USD, as the ledgers count it. */
  used: BudgetAmount;
  reserved: BudgetAmount;
  /** (used + reserved) / limit, for each limit the budget has. */
  fractions: { cost?: number; tokens?: number };
  state: BudgetState;
}

const ZERO: BudgetAmount = { costMicroUsd: 0, tokens: 0 };

function viewOf(budget: BudgetConfig, usage: BudgetUsage | undefined, now: number): BudgetView {
  const window = windowAt(budget.window, now);
  const used = usage?.used ?? ZERO;
  const reserved = usage?.reserved ?? ZERO;
  const fractions: BudgetView['fractions'] = {};
  if (budget.maxCostUsd !== undefined)
    fractions.cost = (used.costMicroUsd + reserved.costMicroUsd) / toMicroUsd(budget.maxCostUsd);
  if (budget.maxTokens !== undefined) fractions.tokens = (used.tokens + reserved.tokens) / budget.maxTokens;
  const share = Math.max(fractions.cost ?? 0, fractions.tokens ?? 0);
  return {
    id: budget.id,
    scope: budget.scope,
    window: budget.window,
    action: budget.action,
    warnAtFraction: budget.warnAtFraction,
    ...(budget.maxCostUsd === undefined ? {} : { maxCostUsd: budget.maxCostUsd }),
    ...(budget.maxTokens === undefined ? {} : { maxTokens: budget.maxTokens }),
    windowStart: usage?.windowStart ?? window.start,
    windowEnd: usage?.windowEnd ?? window.end,
    used,
    reserved,
    fractions,
    state: share >= 1 ? 'exhausted' : share >= budget.warnAtFraction ? 'warning' : 'ok',
  };
}

/** The raw `budgets:` list of a config document (absent when the file has none). */
const rawBudgets = (raw: Record<string, unknown>): unknown[] => (Array.isArray(raw.budgets) ? [...raw.budgets] : []);
const rawId = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && 'id' in value ? value.id : undefined;

export function budgetMethods({ config, ledger, tenantsOf, now }: BudgetMethodsDeps) {
  /** The configured budgets (of one scope, or of a set of scopes) with their usage, in config order. */
  async function views(scopes?: ReadonlySet<string>): Promise<BudgetView[]> {
    const usage = new Map((await ledger.usage()).map((entry) => [entry.budgetId, entry]));
    const at = now();
    return config
      .get()
      .budgets.filter((budget) => scopes === undefined || scopes.has(budget.scope))
      .map((budget) => viewOf(budget, usage.get(budget.id), at));
  }
  const find = (id: string) => config.get().budgets.find((budget) => budget.id === id);

  return [
    defineMethod({
      name: 'budgets.list',
      scope: 'admin',
      summary:
        "Every configured budget with its current window (start, end), usage and reservations (cost in micro-USD), each limit's used fraction and its state (ok, warning, exhausted).",
      params: noParams,
      handler: async () => ({ budgets: await views() }),
    }),
    defineMethod({
      name: 'budgets.set',
      scope: 'admin',
      summary:
        'Adds a budget or replaces the one with this id in the config (validated, hot-applied, one commit); answers it as stored, defaults filled in.',
      params: budgetParams,
      handler: async (params) => {
        const stored = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
        await config.update((raw) => {
          const budgets = rawBudgets(raw);
          const index = budgets.findIndex((budget) => rawId(budget) === params.id);
          if (index === -1) budgets.push(stored);
          else budgets[index] = stored;
          return { ...raw, budgets };
        }, `budgets.set ${params.id}`);
        const budget = find(params.id);
        if (budget === undefined) throw budgetNotFound(params.id);
        return budget;
      },
    }),
    defineMethod({
      name: 'budgets.delete',
      scope: 'admin',
      summary: 'Removes a budget from the config (hot-applied, one commit); an unknown id is not_found.',
      params: z.strictObject({ id: entry.shape.id }),
      handler: async ({ id }) => {
        await config.update((raw) => {
          const budgets = rawBudgets(raw);
          const kept = budgets.filter((budget) => rawId(budget) !== id);
          if (kept.length === budgets.length) throw budgetNotFound(id);
          return { ...raw, budgets: kept };
        }, `budgets.delete ${id}`);
        return { ok: true, id };
      },
    }),
    defineMethod({
      name: 'budgets.usage',
      scope: 'admin',
      summary: "The budgets of one scope (or all) with their current window's usage, reservations and used fractions.",
      params: z.strictObject({ scope: budgetScope.optional() }),
      handler: async ({ scope }) => ({ usage: await views(scope === undefined ? undefined : new Set([scope])) }),
    }),
    defineMethod({
      name: 'budgets.mine',
      scope: 'rpc',
      summary:
        "The caller token's own budgets (token:<its id>) and its tenants' (tenant:<id>) with usage; another scope is forbidden.",
      params: z.strictObject({ scope: budgetScope.optional() }),
      handler: async ({ scope }, { caller }) => {
        const tenants = [DEFAULT_TENANT, ...tenantsOf(caller.clientId).filter((tenant) => tenant !== DEFAULT_TENANT)];
        const own = new Set([`token:${caller.clientId}`, ...tenants.map((tenant) => `tenant:${tenant}`)]);
        if (scope !== undefined && !own.has(scope)) throw budgetScopeForbidden(scope);
        return {
          tokenId: caller.clientId,
          tenants,
          budgets: await views(scope === undefined ? own : new Set([scope])),
        };
      },
    }),
  ];
}
