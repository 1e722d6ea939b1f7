// A replica in a child process (see spawnReplicaProcess): joins Redis coordination, prints its id, then idles.
import { createEventBus } from '../../src/events/index.js';
import { z } from 'zod';
import { createCoordination } from '../../src/coordination/index.js';
import { createLogger } from '../../src/obs/logger.js';

const env = z.object({ REDIS_URL: z.string(), KEY_PREFIX: z.string(), TIMINGS: z.string() }).parse(process.env);
const timings = z.record(z.string(), z.number()).parse(JSON.parse(env.TIMINGS));
const log = createLogger({ level: 'silent' });
const coordination = await createCoordination({
  config: { kind: 'redis', url: env.REDIS_URL, keyPrefix: env.KEY_PREFIX, channelLeaseTtlMs: 15_000 },
  events: createEventBus({ now: Date.now, log }),
  replayEvents: 10,
  log,
  timings,
});
process.stdout.write(`ready ${coordination.instances.currentId}\n`);
// The heartbeat timer is unref'd; this keeps the process alive until it is killed.
setInterval(() => {}, 60_000);
