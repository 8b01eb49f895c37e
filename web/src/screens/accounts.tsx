import { PageHeader } from '../components/ui.tsx';
export function ChartOfAccounts() {
  return <PageHeader title="ChartOfAccounts" />;
}
