// security:warn for a config that exposes the gateway: a bind beyond loopback without TLS, terminal drives without a
// jail. Told at start and again whenever a config change brings one in (a reason already present is not repeated).
import type { ConfigChange, GatewayConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The unsafe settings of `config`, as security:warn reasons. */
export function unsafeConfigReasons(config: GatewayConfig): string[] {
  const reasons: string[] = [];
  if (!isLoopback(config.gateway.host) && config.gateway.tls.certPath === null) reasons.push('public_bind_without_tls');
  if (config.terminal.enabled && config.terminal.sandbox === 'none') reasons.push('terminal_sandbox_none');
  return reasons;
}

export interface UnsafeConfigWatchDeps {
  config: { get(): GatewayConfig; onChange(listener: (change: ConfigChange) => void): () => void };
  events: EventBus;
}

/** Warns about the running config now and about each unsafe setting a later change adds; returns the unsubscribe. */
export function watchUnsafeConfig({ config, events }: UnsafeConfigWatchDeps): () => void {
  for (const reason of unsafeConfigReasons(config.get())) events.emit('security:warn', { reason });
  return config.onChange(({ config: next, previous }) => {
    const before = new Set(unsafeConfigReasons(previous));
    for (const reason of unsafeConfigReasons(next)) if (!before.has(reason)) events.emit('security:warn', { reason });
  });
}
