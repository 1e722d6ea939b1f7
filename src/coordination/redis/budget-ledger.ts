// The budget ledger in Redis, shared by every replica: reserve, settle and release are each one Lua script, so N
// replicas together never pass a limit. Which budgets apply, their limits, bucket keys and `now` are computed here,
// with the same functions as the in-process ledger, and passed to the scripts.
import type { Logger } from 'pino';
import { z } from 'zod';
import type { BudgetAmount, BudgetLedger, BudgetSubject, BudgetUsage, SharedLedgerDeps } from '../../budgets/types.js';
import type { BudgetConfig } from '../../config/index.js';
import { coordinationUnreachable } from '../../errors.js';
import type { RedisLink } from './connection.js';
import { defineScript } from './scripts.js';

/**
 * Keys live this much longer than what they hold can count (clocks of replicas differ; usage reads a moment late).
 * Expiries are relative to the caller's `now` (PEXPIRE, not PEXPIREAT), so a replica's clock skews them by its own
 * offset only, and a test's fake clock cannot expire a key at once.
 */
const KEY_SLACK_MS = 3_600_000;
/** How long a settled reservation's mark stays: a settlement retried within it is counted once. */
const SETTLED_MARK_MS = 3_600_000;

// Per budget: KEYS held (sorted set: reservation id by expiry), amounts (hash: reservation id -> "cost:tokens"), then
// its m counted buckets (hash: cost, tokens). ARGV[1] now, [2] reservation id, [3] ttl ms, [4] cost, [5] tokens,
// [6] n budgets, then per budget: blocking (1/0), max cost (-1: none), max tokens (-1: none), m.
// Expired reservations are purged; each budget's total is its buckets plus its live reservations. Replies
// {refusing budget's 1-based index or 0, cost_1, tokens_1, ...}: the totals before this ask. Nothing is added on a refusal.
const RESERVE = defineScript(`
local now, ttl = tonumber(ARGV[1]), tonumber(ARGV[3])
local askCost, askTokens = tonumber(ARGV[4]), tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local reply = {0}
local k, a = 1, 7
for i = 1, n do
  local held, amounts = KEYS[k], KEYS[k + 1]
  local m = tonumber(ARGV[a + 3])
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', held, '-inf', now)) do redis.call('HDEL', amounts, id) end
  redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
  local cost, tokens = 0, 0
  for _, id in ipairs(redis.call('ZRANGE', held, 0, -1)) do
    local value = redis.call('HGET', amounts, id)
    if value then
      local sep = string.find(value, ':', 1, true)
      cost = cost + tonumber(string.sub(value, 1, sep - 1))
      tokens = tokens + tonumber(string.sub(value, sep + 1))
    end
  end
  for j = 1, m do
    local bucket = redis.call('HMGET', KEYS[k + 1 + j], 'cost', 'tokens')
    cost = cost + (tonumber(bucket[1]) or 0)
    tokens = tokens + (tonumber(bucket[2]) or 0)
  end
  reply[#reply + 1] = cost
  reply[#reply + 1] = tokens
  local maxCost, maxTokens = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  if reply[1] == 0 and ARGV[a] == '1' and ((maxCost >= 0 and cost + askCost > maxCost) or
      (maxTokens >= 0 and tokens + askTokens > maxTokens)) then
    reply[1] = i
  end
  k = k + 2 + m
  a = a + 4
end
if reply[1] ~= 0 then return reply end
k, a = 1, 7
for i = 1, n do
  local held, amounts = KEYS[k], KEYS[k + 1]
  redis.call('ZADD', held, now + ttl, ARGV[2])
  redis.call('HSET', amounts, ARGV[2], ARGV[4] .. ':' .. ARGV[5])
  local keep = ttl + ${KEY_SLACK_MS}
  if redis.call('PTTL', held) < keep then redis.call('PEXPIRE', held, keep) end
  if redis.call('PTTL', amounts) < keep then redis.call('PEXPIRE', amounts, keep) end
  k = k + 2 + tonumber(ARGV[a + 3])
  a = a + 4
end
return reply
`);

// KEYS[1] the reservation's settled mark; then per budget: held, amounts, the bucket the use is counted in. ARGV[1]
// reservation id, [2] cost, [3] tokens, [4] n, [5] how long the mark is kept, then per budget how long its bucket must
// be kept, in ms. Counts whether or not the reservation still exists, and once: a retried settlement (its first try
// timed out but ran) finds the mark and counts nothing.
const SETTLE = defineScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[5]) then return 0 end
local n = tonumber(ARGV[4])
for i = 1, n do
  local base = 1 + (i - 1) * 3
  redis.call('ZREM', KEYS[base + 1], ARGV[1])
  redis.call('HDEL', KEYS[base + 2], ARGV[1])
  local used = KEYS[base + 3]
  redis.call('HINCRBY', used, 'cost', ARGV[2])
  redis.call('HINCRBY', used, 'tokens', ARGV[3])
  local keep = tonumber(ARGV[5 + i])
  if redis.call('PTTL', used) < keep then redis.call('PEXPIRE', used, keep) end
end
return n
`);

// KEYS held, amounts pairs; ARGV[1] reservation id.
const RELEASE = defineScript(`
for i = 1, #KEYS, 2 do
  redis.call('ZREM', KEYS[i], ARGV[1])
  redis.call('HDEL', KEYS[i + 1], ARGV[1])
end
return 0
`);

// KEYS held, amounts, then the counted buckets; ARGV[1] now. Reads only: {used cost, used tokens, held cost, held tokens}.
const READ = defineScript(`
local now = tonumber(ARGV[1])
local reply = {0, 0, 0, 0}
for j = 3, #KEYS do
  local bucket = redis.call('HMGET', KEYS[j], 'cost', 'tokens')
  reply[1] = reply[1] + (tonumber(bucket[1]) or 0)
  reply[2] = reply[2] + (tonumber(bucket[2]) or 0)
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')) do
  local value = redis.call('HGET', KEYS[2], id)
  if value then
    local sep = string.find(value, ':', 1, true)
    reply[3] = reply[3] + tonumber(string.sub(value, 1, sep - 1))
    reply[4] = reply[4] + tonumber(string.sub(value, sep + 1))
  end
end
return reply
`);

const integers = z.array(z.number().int());
const readReply = z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int()]);

/** Whole non-negative units: the scripts count with HINCRBY. */
const whole = (value: number): number => Math.max(0, Math.ceil(value));
const wholeAmount = (amount: BudgetAmount): BudgetAmount => ({
  costMicroUsd: whole(amount.costMicroUsd),
  tokens: whole(amount.tokens),
});

interface PendingSettle {
  keys: string[];
  args: (string | number)[];
}

/**
 * Not connected, a reserve fails closed with coordinationUnreachable (a budget is never skipped because Redis is
 * away). A settlement that cannot reach Redis is kept and written before the next reservation (and at close), so a
 * call's use is not lost; a release that cannot reach Redis is dropped: the reservation expires with its ttl.
 */
export function createRedisBudgetLedger(link: RedisLink, log: Logger, deps: SharedLedgerDeps): BudgetLedger {
  const { applicableBudgets, fits, toMicroUsd, bucketAt, bucketCountedUntil, bucketsAt, windowAt } = deps.rules;
  const { budgets, now, newId } = deps;
  const held = (budget: BudgetConfig) => link.key(`budget:${budget.id}:held`);
  const amounts = (budget: BudgetConfig) => link.key(`budget:${budget.id}:amounts`);
  const used = (budget: BudgetConfig, bucket: number) => link.key(`budget:${budget.id}:used:${bucket}`);
  const pending: PendingSettle[] = [];
  let draining: Promise<void> | undefined;

  /** Writes the kept settlements, one drain at a time, so none is written twice. */
  const writePending = (): Promise<void> => {
    if (draining !== undefined) return draining;
    const drain = async () => {
      while (pending.length > 0 && link.isConnected()) {
        const [next] = pending;
        if (next === undefined) return;
        await SETTLE(link.commands, next.keys, next.args);
        pending.shift();
      }
    };
    // Cleared only once this drain has settled (never synchronously inside it), so a later call starts a new one.
    draining = drain().finally(() => {
      draining = undefined;
    });
    return draining;
  };

  return {
    async reserve(subject: BudgetSubject, worstCase: BudgetAmount, ttlMs: number) {
      if (!link.isConnected()) throw coordinationUnreachable();
      await writePending().catch((error: unknown) =>
        log.warn({ err: error, pending: pending.length }, 'could not write kept budget settlements yet'),
      );
      const at = now();
      const ask = wholeAmount(worstCase);
      const applicable = applicableBudgets(budgets(), subject);
      const keys: string[] = [];
      const args: (string | number)[] = [at, '', whole(ttlMs), ask.costMicroUsd, ask.tokens, applicable.length];
      for (const budget of applicable) {
        const buckets = bucketsAt(budget.window, at);
        keys.push(held(budget), amounts(budget), ...buckets.map((bucket) => used(budget, bucket)));
        args.push(
          budget.action === 'block' ? 1 : 0,
          budget.maxCostUsd === undefined ? -1 : toMicroUsd(budget.maxCostUsd),
          budget.maxTokens ?? -1,
          buckets.length,
        );
      }
      const reservation = { id: newId(), subject, amount: ask };
      args[1] = reservation.id;
      const reply = await RESERVE(link.commands, keys, args).catch((error: unknown) => {
        log.warn({ err: error }, 'could not reserve a budget in redis; the call is refused');
        throw coordinationUnreachable();
      });
      const [refusing = 0, ...totals] = integers.parse(reply);
      const totalOf = (budget: BudgetConfig): BudgetAmount => {
        const index = applicable.indexOf(budget);
        return { costMicroUsd: totals[index * 2] ?? 0, tokens: totals[index * 2 + 1] ?? 0 };
      };
      const blocking = applicable[refusing - 1];
      if (blocking !== undefined)
        return { ok: false, budgetId: blocking.id, retryAfterMs: Math.max(0, windowAt(blocking.window, at).end - at) };
      const outcome = fits(applicable, totalOf, ask, at);
      return outcome.fits
        ? { ok: true, reservation, warnings: outcome.warnings, exhausted: outcome.exhausted }
        : { ok: true, reservation, warnings: [], exhausted: [] };
    },

    async settle(reservation, actual) {
      const at = now();
      const amount = wholeAmount(actual);
      const applicable = applicableBudgets(budgets(), reservation.subject);
      if (applicable.length === 0) return;
      const keys = [link.key(`budget-settled:${reservation.id}`)];
      const args: (string | number)[] = [
        reservation.id,
        amount.costMicroUsd,
        amount.tokens,
        applicable.length,
        SETTLED_MARK_MS,
      ];
      for (const budget of applicable) {
        const bucket = bucketAt(budget.window, at);
        keys.push(held(budget), amounts(budget), used(budget, bucket));
        args.push(bucketCountedUntil(budget.window, bucket) - at + KEY_SLACK_MS);
      }
      try {
        if (!link.isConnected()) throw coordinationUnreachable();
        await SETTLE(link.commands, keys, args);
      } catch (error) {
        pending.push({ keys, args });
        log.warn({ err: error, pending: pending.length }, 'could not settle budget use in redis; kept and retried');
        return;
      }
      if (pending.length > 0) await writePending().catch(() => undefined);
    },

    async release(reservation) {
      const keys = applicableBudgets(budgets(), reservation.subject).flatMap((budget) => [
        held(budget),
        amounts(budget),
      ]);
      if (keys.length === 0) return;
      if (!link.isConnected()) return log.warn('redis is unreachable; the budget reservation lapses with its ttl');
      await RELEASE(link.commands, keys, [reservation.id]).catch((error: unknown) =>
        log.warn({ err: error }, 'could not release a budget reservation; it lapses with its ttl'),
      );
    },

    async usage(scope) {
      if (!link.isConnected()) throw coordinationUnreachable();
      const at = now();
      const shown = budgets().filter((budget) => scope === undefined || budget.scope === scope);
      return Promise.all(
        shown.map(async (budget): Promise<BudgetUsage> => {
          const keys = [held(budget), amounts(budget), ...bucketsAt(budget.window, at).map((b) => used(budget, b))];
          const [usedCost, usedTokens, heldCost, heldTokens] = readReply.parse(await READ(link.commands, keys, [at]));
          const window = windowAt(budget.window, at);
          return {
            budgetId: budget.id,
            scope: budget.scope,
            action: budget.action,
            windowStart: window.start,
            windowEnd: window.end,
            used: { costMicroUsd: usedCost, tokens: usedTokens },
            reserved: { costMicroUsd: heldCost, tokens: heldTokens },
            limits: {
              ...(budget.maxCostUsd === undefined ? {} : { maxCostUsd: budget.maxCostUsd }),
              ...(budget.maxTokens === undefined ? {} : { maxTokens: budget.maxTokens }),
            },
          };
        }),
      );
    },

    async close() {
      try {
        await writePending();
      } catch (error) {
        log.warn({ err: error }, 'could not settle budget use in redis at shutdown');
      }
      if (pending.length > 0)
        log.error({ settlements: pending.length }, 'budget use could not be written to redis before shutdown');
    },
  };
}
