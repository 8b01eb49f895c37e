import { PageHeader } from '../components/ui.tsx';
export function Reports() {
  return <PageHeader title="Reports" />;
}
