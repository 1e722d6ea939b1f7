// /ready's view of the dependencies: storage and coordination each pinged within a short timeout, the answer
// kept briefly so a load balancer polling every replica costs one ping per dependency per interval.

export const READY_LIMITS = {
  /** A dependency that has not answered its ping in this long counts as unreachable, in ms. */
  probeTimeoutMs: 2_000,
  /** A result is reused for this long; concurrent /ready requests share one probe, in ms. */
  cacheMs: 1_000,
};

export type Dependency = 'storage' | 'coordination';
export type DependencyState = 'ok' | 'unreachable';

/** A cheap round trip to each dependency; an absent one is in process (SQLite, local coordination) and always ok. */
export type DependencyProbes = Partial<Record<Dependency, () => Promise<void>>>;

export interface Readiness {
  isReady: boolean;
  dependencies: Record<Dependency, DependencyState>;
}

export interface ReadinessDeps {
  probes: DependencyProbes;
  now: () => number;
  limits?: typeof READY_LIMITS;
}

async function probeOnce(probe: (() => Promise<void>) | undefined, timeoutMs: number): Promise<DependencyState> {
  if (probe === undefined) return 'ok';
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<DependencyState>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, 'unreachable');
    timer.unref();
  });
  try {
    return await Promise.race([
      probe().then(
        (): DependencyState => 'ok',
        (): DependencyState => 'unreachable',
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function createReadiness({ probes, now, limits = READY_LIMITS }: ReadinessDeps): () => Promise<Readiness> {
  let last: { at: number; readiness: Readiness } | undefined;
  let running: Promise<Readiness> | undefined;

  async function probeAll(): Promise<Readiness> {
    const [storage, coordination] = await Promise.all([
      probeOnce(probes.storage, limits.probeTimeoutMs),
      probeOnce(probes.coordination, limits.probeTimeoutMs),
    ]);
    return { isReady: storage === 'ok' && coordination === 'ok', dependencies: { storage, coordination } };
  }

  return function readiness() {
    if (last !== undefined && now() - last.at < limits.cacheMs) return Promise.resolve(last.readiness);
    running ??= probeAll()
      .then((readiness) => {
        last = { at: now(), readiness };
        return readiness;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
}
