import { PageHeader } from '../components/ui.tsx';
export function RunPage() {
  return <PageHeader title="RunPage" />;
}
