// Units shared by the config schemas: positive integers and `…Ms` durations bounded by Node's timer limit.
import { z } from 'zod';

export const positiveInt = z.number().int().positive();

/** Node keeps timer delays in a signed 32-bit int and turns anything larger into 1 ms (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2_147_483_647;

/** Every `…Ms` key (DESIGN §3 "time values in config"): an integer from `min` to MAX_TIMER_MS. */
export function durationMs(min: 0 | 1) {
  return z
    .number()
    .int()
    .min(min)
    .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms (the longest timer Node supports)`);
}
