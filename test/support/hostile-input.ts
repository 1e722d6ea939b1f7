// Seeded generators of malformed and hostile values, bodies and JSON-RPC messages for the fuzz test.

/** A small seeded PRNG (mulberry32): the same seed gives the same inputs, so a failure can be replayed. */
export interface Random {
  seed: number;
  next(): number;
  int(maxExclusive: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (maxExclusive: number) => Math.floor(next() * maxExclusive);
  return {
    seed,
    next,
    int,
    chance: (probability) => next() < probability,
    pick: (items) => items[int(items.length)] as (typeof items)[number],
  };
}

const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\uffff',
  '💥'.repeat(50),
  '../../../../etc/passwd',
  '%00%2e%2e%2f',
  '${secret:webhookSecret}',
  "'; DROP TABLE sessions; --",
  '<script>alert(1)</script>',
  'default',
  'admin',
  'tenant:user:channel:peer',
  ':::',
  'x'.repeat(5_000),
  '1e309',
  'NaN',
  ...FORBIDDEN_KEYS,
] as const;

const HOSTILE_NUMBERS = [
  0,
  -1,
  1,
  0.5,
  -0.0,
  2 ** 31,
  2 ** 31 - 1,
  2 ** 53 + 1,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  1e-300,
] as const;

/** A JSON value nested `depth` levels deep, as text (10,000 levels is what overflowed the stack before). */
export function deepJson(depth: number, open = '[', close = ']'): string {
  return open.repeat(depth) + close.repeat(depth);
}

/** One hostile JSON-able value: odd strings and numbers, wrong types, wide or deep structures. */
export function hostileValue(random: Random, depth = 0): unknown {
  switch (random.int(depth > 2 ? 4 : 8)) {
    case 0:
      return random.pick(HOSTILE_STRINGS);
    case 1:
      return random.pick(HOSTILE_NUMBERS);
    case 2:
      return random.pick([null, true, false, [], {}]);
    case 3:
      return random.pick(['a', 'hello', 'small', 'local']) + random.pick(HOSTILE_STRINGS).slice(0, 20);
    case 4:
      return Array.from({ length: random.int(4) }, () => hostileValue(random, depth + 1));
    case 5:
      return Object.fromEntries(
        Array.from({ length: random.int(4) }, () => [
          random.pick(HOSTILE_STRINGS).slice(0, 40),
          hostileValue(random, depth + 1),
        ]),
      );
    case 6:
      return Array.from({ length: 2_000 + random.int(3_000) }, (_, index) => index);
    default:
      return { message: random.pick(HOSTILE_STRINGS), nested: hostileValue(random, depth + 1) };
  }
}

/** A copy of `template` with one key dropped, replaced by a hostile value, or added. */
export function mutate(random: Random, template: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...template };
  const keys = Object.keys(copy);
  const action = random.int(3);
  if (action === 0 && keys.length > 0) delete copy[random.pick(keys)];
  else if (action === 1 && keys.length > 0) copy[random.pick(keys)] = hostileValue(random);
  else copy[random.pick(HOSTILE_STRINGS).slice(0, 30) || 'extra'] = hostileValue(random);
  return copy;
}

/** Serialises a body, sometimes with a forbidden key or nesting spliced into the text where JSON.stringify cannot put it. */
export function hostileJsonText(random: Random, value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  switch (random.int(10)) {
    case 0:
      return text.startsWith('{') && text.length > 2
        ? `{"${random.pick(FORBIDDEN_KEYS)}":{"polluted":true},${text.slice(1)}`
        : text;
    case 1:
      return text.startsWith('{') && text.length > 2
        ? `{"deep":${deepJson(2_000 + random.int(9_000), random.chance(0.5) ? '[' : '{"a":', random.chance(0.5) ? ']' : '}')},${text.slice(1)}`
        : text;
    case 2:
      return text.slice(0, Math.max(1, random.int(text.length)));
    case 3:
      return `\ufeff${text}`;
    default:
      return text;
  }
}

/** Bytes that are not JSON at all, or barely. */
export function garbageBody(random: Random): string | Uint8Array {
  switch (random.int(6)) {
    case 0:
      return Uint8Array.from({ length: 1 + random.int(512) }, () => random.int(256));
    case 1:
      return deepJson(10_000 + random.int(20_000));
    case 2:
      return `{"a":"${'b'.repeat(70_000 + random.int(30_000))}"}`;
    case 3:
      return random.pick(['', 'null', '[]', '{}', '"text"', '1e999', '{"a":1,"a":2}', '{,}', '[1,]', 'true false']);
    case 4:
      return '{'.repeat(1 + random.int(30));
    default:
      return random.pick(HOSTILE_STRINGS);
  }
}

/** A JSON-RPC id that may be valid (string, number, null) or not (object, array, boolean, fraction). */
export function hostileId(random: Random): unknown {
  return random.pick([1, 'req', null, 0, -5, 2 ** 53 + 1, 1.5, true, {}, [], 'x'.repeat(1_000), undefined]);
}
