import { PageHeader } from '../components/ui.tsx';
export function JournalEntryPage() {
  return <PageHeader title="JournalEntryPage" />;
}
