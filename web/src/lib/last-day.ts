// The last 24 hours ending at the current one: obs.billing.usage24h's UTC hour-of-day buckets put in time order.
const HOUR_MS = 3_600_000;

export interface HourPoint {
  /** The hour's start in local time, `HH:MM`. */
  label: string;
  tokens: number;
}

function clockLabel(epochMs: number): string {
  const date = new Date(epochMs);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

/**
 * Oldest hour first, the current hour last (so just after midnight today's traffic is at the right edge); labelled by
 * each hour's local start time.
 */
export function lastDayHours(rows: readonly { hour: number; tokens: number }[], nowMs = Date.now()): HourPoint[] {
  const byHour = new Map(rows.map((row) => [row.hour, row.tokens]));
  const currentHourStart = nowMs - (nowMs % HOUR_MS);
  return Array.from({ length: 24 }, (_, index) => {
    const start = currentHourStart - (23 - index) * HOUR_MS;
    return { label: clockLabel(start), tokens: byHour.get(new Date(start).getUTCHours()) ?? 0 };
  });
}
