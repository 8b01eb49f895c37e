import { PageHeader } from '../components/ui.tsx';
export function Fiscal() {
  return <PageHeader title="Fiscal" />;
}
