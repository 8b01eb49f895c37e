import { PageHeader } from '../components/ui.tsx';
export function JournalList() {
  return <PageHeader title="JournalList" />;
}
