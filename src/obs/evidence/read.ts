// Defensive readers for recorded JSON evidence: anything malformed folds to a zero, an absent value or a default.

/** Strings taken from evidence are clamped so a hostile or runaway value cannot bloat a report. */
export const MAX_EVIDENCE_STRING = 128;

export type Data = Record<string, unknown>;

export function isRecord(value: unknown): value is Data {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number, else `fallback` (0): NaN, strings and nulls fold to zero. */
export function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** A finite, non-negative number, else 0. */
export function count(value: unknown): number {
  const n = num(value);
  return n > 0 ? n : 0;
}

export function optNum(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function str(value: unknown, max = MAX_EVIDENCE_STRING): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return undefined;
  return value.length > max ? value.slice(0, max) : value;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** A JSON text column parsed to an object; anything else is an empty object. */
export function parseData(text: unknown): Data {
  if (typeof text !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Rounds for stable, readable JSON (costs to 6 decimals, ratios to 4). */
export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** Compares strings by code unit, independent of the process locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Adds `by` to a counter map entry. */
export function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** The key with the highest count; ties go to the key that sorts first. */
export function topKey(map: ReadonlyMap<string, number>): string | undefined {
  let best: string | undefined;
  let bestCount = -1;
  for (const [key, value] of map) {
    if (value > bestCount || (value === bestCount && best !== undefined && compareText(key, best) < 0)) {
      best = key;
      bestCount = value;
    }
  }
  return best;
}

/** A map as a plain object with its keys sorted, so JSON output does not depend on insertion order. */
export function sortedObject<V>(map: ReadonlyMap<string, V>): Record<string, V> {
  // fromEntries defines own properties, so a key such as `__proto__` stays an ordinary key.
  return Object.fromEntries([...map.entries()].sort(([a], [b]) => compareText(a, b)));
}
