import { PageHeader } from '../components/ui.tsx';
export function Groups() {
  return <PageHeader title="Groups" />;
}
