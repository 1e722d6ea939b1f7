// Every system event name of the spec's Events table, carried by the bus and the /api/events SSE stream.

export const EVENT_NAMES = [
  'message:received', 'message:sent', 'message:streaming',
  'session:created', 'session:expired', 'session:sub_agent_spawned', 'session:sub_agent_completed',
  'session:sub_agent_archived', 'session:sub_agent_spawn_rejected', 'session:sub_agent_spawn_started',
  'session:sub_agent_spawn_queued', 'session:sub_agent_lifecycle_ended',
  'audit:event', 'security:injection_detected', 'security:injection_rate_exceeded', 'security:memory_tainted',
  'security:warn', 'secret:accessed', 'secret:modified',
  'skill:executed', 'skill:rejected', 'skill:loaded', 'skill:registry_reset',
  'observability:metrics', 'observability:token_usage', 'observability:reset',
  'scheduler:job_started', 'scheduler:job_completed', 'scheduler:heartbeat_check', 'scheduler:heartbeat_delivered',
  'scheduler:heartbeat_alert',
  'approval:requested', 'approval:resolved',
  'graph:started', 'graph:node_updated', 'graph:completed',
  'config:patched',
  'diagnostic:channel_health', 'diagnostic:billing_snapshot',
  'model:catalog_loaded', 'model:fallback_attempt', 'model:fallback_exhausted', 'model:auth_cooldown',
  'provider:degraded', 'provider:recovered',
  'agent:hot_added', 'agent:hot_removed',
  'channel:registered', 'channel:deregistered',
  'system:error',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];
