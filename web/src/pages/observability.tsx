// Observability: billing by agent, provider and hour (charts), fleet health with its findings, and the audit log.
import { AuditLog } from '../components/audit-log';
import { BillingCharts } from '../components/billing-charts';
import { FleetHealthView } from '../components/fleet-health';
import { PageTitle } from '../components/ui';

export default function ObservabilityPage() {
  return (
    <>
      <PageTitle>Observability</PageTitle>
      <BillingCharts />
      <FleetHealthView />
      <AuditLog />
    </>
  );
}
