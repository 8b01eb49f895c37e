import { PageHeader } from '../components/ui.tsx';
export function GroupPage() {
  return <PageHeader title="GroupPage" />;
}
