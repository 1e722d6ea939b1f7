// Builds a model router over a validated providers: config pointing at fake LLM servers, and records its events.
import { createEventBus, type BusEvent, type EventName } from '../../src/events/index.js';
import { validateConfig, type ConfigInput } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/index.js';
import {
  createModelRouter,
  type GatewayModelRouter,
  type ModelRef,
  type ModelRouterDeps,
  type ModelStreamEvent,
  type RoutedCallRequest,
} from '../../src/providers/index.js';

export type ProvidersInput = NonNullable<ConfigInput['providers']>;

export interface RouterFixture {
  router: GatewayModelRouter;
  events: BusEvent[];
  eventsNamed<K extends EventName>(name: K): Extract<BusEvent, { name: K }>[];
  clock: { now: number; advance(ms: number): void };
}

export const silentLog = createLogger({ level: 'silent' });

export function createRouterFixture(
  providers: ProvidersInput,
  options: Pick<ModelRouterDeps, 'breaker' | 'authCooldownMs'> & { startAt?: number } = {},
): RouterFixture {
  const config = validateConfig({ providers }, 'test');
  const clock = {
    now: options.startAt ?? 1_700_000_000_000,
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const now = (): number => clock.now;
  const bus = createEventBus({ now, log: silentLog });
  const events: BusEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const router = createModelRouter({ config: config.providers, events: bus, log: silentLog, now, ...options });
  return {
    router,
    events,
    eventsNamed: <K extends EventName>(name: K) =>
      events.filter((event): event is Extract<BusEvent, { name: K }> => event.name === name),
    clock,
  };
}

export function callRequest(primary: ModelRef, overrides: Partial<RoutedCallRequest> = {}): RoutedCallRequest {
  return {
    primary,
    fallbacks: [],
    system: 'You are a test assistant.',
    messages: [{ role: 'user', content: 'Say hello', timestamp: 0 }],
    tools: [],
    agentId: 'default',
    sessionKey: 'default:test:test',
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Drains a routed call; the error (if any) is returned rather than thrown, with the events seen before it. */
export async function collect(
  stream: AsyncIterable<ModelStreamEvent>,
): Promise<{ events: ModelStreamEvent[]; error?: unknown }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

export function textOf(events: readonly ModelStreamEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}

export function finishOf(events: readonly ModelStreamEvent[]): Extract<ModelStreamEvent, { type: 'finish' }> {
  const finish = events.find((event) => event.type === 'finish');
  if (finish === undefined || finish.type !== 'finish') throw new Error('no finish event');
  return finish;
}
