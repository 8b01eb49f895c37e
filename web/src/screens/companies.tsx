import { PageHeader } from '../components/ui.tsx';
export function Companies() {
  return <PageHeader title="Companies" />;
}
export function NewCompany() {
  return <PageHeader title="NewCompany" />;
}
export function EditCompany() {
  return <PageHeader title="EditCompany" />;
}
