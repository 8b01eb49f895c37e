/**
 * Every screen has its own URL; screens other than sign-in are loaded on demand (one chunk each), so
 * the first load only brings the shell.
 */
import { createBrowserRouter, Navigate, Outlet, useLocation } from 'react-router';
import { OrgLayout } from './components/layout.tsx';
import { readSession } from './lib/session.ts';
import { SignIn, SignUp } from './screens/auth.tsx';
import { Home, NotFound } from './screens/home.tsx';

function RequireSession({ children }: { children?: React.ReactNode }) {
  const location = useLocation();
  if (!readSession()) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/sign-in?next=${next}`} replace />;
  }
  return <>{children ?? <Outlet />}</>;
}

/** A route whose screen is loaded on first use: `lazy(() => import('./x.tsx'), (m) => m.Screen)`. */
const lazy =
  <M,>(load: () => Promise<M>, pick: (module: M) => React.ComponentType) =>
  async () => ({ Component: pick(await load()) });

export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignIn /> },
  { path: '/sign-up', element: <SignUp /> },
  {
    path: '/',
    element: (
      <RequireSession>
        <Home />
      </RequireSession>
    ),
  },
  {
    path: '/organizations',
    element: <RequireSession />,
    children: [
      {
        index: true,
        lazy: lazy(
          () => import('./screens/organizations.tsx'),
          (m) => m.Organizations,
        ),
      },
    ],
  },
  {
    path: '/o/:orgId',
    element: (
      <RequireSession>
        <OrgLayout />
      </RequireSession>
    ),
    children: [
      {
        index: true,
        lazy: lazy(
          () => import('./screens/overview.tsx'),
          (m) => m.Overview,
        ),
      },
      {
        path: 'members',
        lazy: lazy(
          () => import('./screens/organizations.tsx'),
          (m) => m.Members,
        ),
      },
      {
        path: 'settings',
        lazy: lazy(
          () => import('./screens/organizations.tsx'),
          (m) => m.Settings,
        ),
      },
      {
        path: 'companies',
        lazy: lazy(
          () => import('./screens/companies.tsx'),
          (m) => m.Companies,
        ),
      },
      {
        path: 'companies/new',
        lazy: lazy(
          () => import('./screens/companies.tsx'),
          (m) => m.NewCompany,
        ),
      },
      {
        path: 'companies/:companyId',
        lazy: lazy(
          () => import('./screens/companies.tsx'),
          (m) => m.EditCompany,
        ),
      },
      {
        path: 'companies/:companyId/accounts',
        lazy: lazy(
          () => import('./screens/accounts.tsx'),
          (m) => m.ChartOfAccounts,
        ),
      },
      {
        path: 'journal',
        lazy: lazy(
          () => import('./screens/journal-list.tsx'),
          (m) => m.JournalList,
        ),
      },
      {
        path: 'journal/new',
        lazy: lazy(
          () => import('./screens/journal-entry.tsx'),
          (m) => m.JournalEntryPage,
        ),
      },
      {
        path: 'journal/:entryId',
        lazy: lazy(
          () => import('./screens/journal-entry.tsx'),
          (m) => m.JournalEntryPage,
        ),
      },
      {
        path: 'fiscal',
        lazy: lazy(
          () => import('./screens/fiscal.tsx'),
          (m) => m.Fiscal,
        ),
      },
      {
        path: 'rates',
        lazy: lazy(
          () => import('./screens/rates.tsx'),
          (m) => m.Rates,
        ),
      },
      {
        path: 'intercompany',
        lazy: lazy(
          () => import('./screens/intercompany.tsx'),
          (m) => m.Intercompany,
        ),
      },
      {
        path: 'consolidation',
        lazy: lazy(
          () => import('./screens/groups.tsx'),
          (m) => m.Groups,
        ),
      },
      {
        path: 'consolidation/groups/:groupId',
        lazy: lazy(
          () => import('./screens/group.tsx'),
          (m) => m.GroupPage,
        ),
      },
      {
        path: 'consolidation/runs/:runId',
        lazy: lazy(
          () => import('./screens/run.tsx'),
          (m) => m.RunPage,
        ),
      },
      {
        path: 'reports',
        lazy: lazy(
          () => import('./screens/reports.tsx'),
          (m) => m.Reports,
        ),
      },
      { path: '*', element: <NotFound /> },
    ],
  },
  { path: '*', element: <NotFound /> },
]);
