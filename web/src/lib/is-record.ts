// Narrows parsed JSON to a plain object, so frames and error envelopes are read without casts.
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
