// The config.patch document that turns one JSON value into another: changed keys only, null for a removed key.
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** undefined when nothing changed (config.patch deep-merges objects and replaces everything else). */
export function mergePatch(before: unknown, after: unknown): Json | undefined {
  if (isObject(before) && isObject(after)) {
    const patch: Record<string, Json> = {};
    for (const key of Object.keys(before)) if (!(key in after)) patch[key] = null;
    for (const [key, value] of Object.entries(after)) {
      const change = mergePatch(before[key], value);
      if (change !== undefined) patch[key] = change;
    }
    return Object.keys(patch).length === 0 ? undefined : patch;
  }
  return JSON.stringify(before) === JSON.stringify(after) ? undefined : (after as Json);
}
