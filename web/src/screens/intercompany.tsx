import { PageHeader } from '../components/ui.tsx';
export function Intercompany() {
  return <PageHeader title="Intercompany" />;
}
