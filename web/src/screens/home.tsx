/** `/`: the first organization of the user, or the organizations page to create one. */
import { useQuery } from '@tanstack/react-query';
import { Link, Navigate } from 'react-router';
import { Alert, Loading } from '../components/ui.tsx';
import { meQuery } from '../lib/queries.ts';

const LAST_ORG = 'groupbook.lastOrganization';

export function rememberOrganization(id: string): void {
  localStorage.setItem(LAST_ORG, id);
}

export function Home() {
  const me = useQuery(meQuery);
  if (me.isPending) return <Loading />;
  if (me.error) return <Alert kind="error">{me.error.message}</Alert>;
  const memberships = me.data.memberships;
  if (memberships.length === 0) return <Navigate to="/organizations" replace />;
  const last = localStorage.getItem(LAST_ORG);
  const target = memberships.find((m) => m.organizationId === last) ?? memberships[0]!;
  return <Navigate to={`/o/${target.organizationId}`} replace />;
}

export function NotFound() {
  return (
    <div className="page narrow">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Back to the console</Link>
      </p>
    </div>
  );
}
