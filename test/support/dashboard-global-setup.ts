// Vitest global setup: builds the dashboard once, before any worker starts, when web/dist is missing or stale,
// so parallel dashboard test files never build into the same directory at the same time.
import { ensureDashboardBuild } from './dashboard-build.js';

export default async function buildDashboard(): Promise<void> {
  await ensureDashboardBuild();
}
