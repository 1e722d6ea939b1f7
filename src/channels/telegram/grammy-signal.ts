// grammy declares its AbortSignal parameters with the type of the abort-controller polyfill it ships for old runtimes;
// at run time it takes Node's own signal (it only checks that addEventListener exists), so only the type differs.
import type { Api } from 'grammy';

export type GrammySignal = NonNullable<Parameters<Api['getMe']>[0]>;

export function grammySignal(signal: AbortSignal): GrammySignal {
  return signal as unknown as GrammySignal;
}
