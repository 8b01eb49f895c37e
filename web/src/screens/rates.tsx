import { PageHeader } from '../components/ui.tsx';
export function Rates() {
  return <PageHeader title="Rates" />;
}
