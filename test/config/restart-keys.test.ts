// Which config changes wait for a restart: only the keys read once at start, compared by value.
import { describe, expect, it } from 'vitest';
import { changedRestartKeys, validateConfig } from '../../src/config/index.js';

const base = validateConfig({}, 'base');
const withGateway = (gateway: Record<string, unknown>) => validateConfig({ gateway }, 'changed');

describe('changedRestartKeys', () => {
  it('names the keys read only at start, a nested one by its section', () => {
    expect(
      changedRestartKeys(base, withGateway({ host: '0.0.0.0', tls: { certPath: '/c.pem', keyPath: '/k.pem' } })),
    ).toEqual(['gateway.host', 'gateway.tls']);
    expect(
      changedRestartKeys(
        base,
        validateConfig({ media: { dir: '/srv/media' }, memory: { lifecycle: { sweepIntervalMs: 0 } } }, 'changed'),
      ),
    ).toEqual(['media.dir', 'memory.lifecycle.sweepIntervalMs']);
  });

  it('names nothing for keys that apply live, or a default written out', () => {
    expect(
      changedRestartKeys(
        base,
        withGateway({
          rateLimit: { maxRequests: 5 },
          maxBatchSize: 2,
          maxConnections: 10,
          webhook: { secret: 'sixteen-characters' },
        }),
      ),
    ).toEqual([]);
    expect(changedRestartKeys(base, withGateway({ host: '127.0.0.1', port: 4766 }))).toEqual([]);
  });
});
