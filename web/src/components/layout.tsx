/**
 * The frame of every organization page: a skip link, the navigation, the organization switcher and
 * the user's menu, and the page itself. The navigation keeps the section when switching organizations.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { api } from '../api/client.ts';
import { setLocale } from '../lib/format.ts';
import { OrgContext } from '../lib/org.tsx';
import { meQuery, orgQuery } from '../lib/queries.ts';
import { clearSession } from '../lib/session.ts';
import { rememberOrganization } from '../screens/home.tsx';
import { Alert, Loading } from './ui.tsx';

const SECTIONS: Array<{ path: string; label: string; end?: boolean }> = [
  { path: '', label: 'Overview', end: true },
  { path: 'journal', label: 'Journal' },
  { path: 'companies', label: 'Companies & accounts' },
  { path: 'fiscal', label: 'Fiscal periods' },
  { path: 'rates', label: 'Exchange rates' },
  { path: 'intercompany', label: 'Intercompany' },
  { path: 'consolidation', label: 'Consolidation' },
  { path: 'reports', label: 'Statements' },
  { path: 'members', label: 'Members' },
  { path: 'settings', label: 'Settings' },
];

export function OrgLayout() {
  const { orgId = '' } = useParams();
  const me = useQuery(meQuery);
  const org = useQuery(orgQuery(orgId));
  const membership = me.data?.memberships.find((m) => m.organizationId === orgId);
  if (org.data) setLocale(org.data.settings.defaultLocale);
  useEffect(() => {
    if (membership) rememberOrganization(orgId);
  }, [membership, orgId]);

  let content: React.ReactNode;
  if (me.isPending || org.isPending) content = <Loading />;
  else if (org.error || !membership || !me.data || !org.data)
    content = (
      <Alert kind="error">
        {org.error ? org.error.message : 'You are not a member of this organization.'}{' '}
        <Link to="/organizations">Your organizations</Link>
      </Alert>
    );
  else
    content = (
      <OrgContext.Provider value={{ orgId, org: org.data, role: membership.role, me: me.data }}>
        <Outlet />
      </OrgContext.Provider>
    );

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <Link to={`/o/${orgId}`} className="brand" aria-label="Groupbook overview">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          <span>Groupbook</span>
        </Link>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.path}>
                <NavLink to={s.path ? `/o/${orgId}/${s.path}` : `/o/${orgId}`} end={s.end ?? false}>
                  {s.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sidebar-foot">
          <a href="/api/docs">API reference</a>
        </div>
      </aside>
      <div className="main-column">
        <TopBar orgId={orgId} />
        <main id="main" className="page" tabIndex={-1}>
          {content}
        </main>
      </div>
    </div>
  );
}

function TopBar({ orgId }: { orgId: string }) {
  const me = useQuery(meQuery);
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const memberships = me.data?.memberships ?? [];
  const role = memberships.find((m) => m.organizationId === orgId)?.role;

  const switchTo = (id: string) => {
    if (id === '__new') return navigate('/organizations');
    // Stay in the same section (list pages only: an entry of one organization is not in another).
    const section = location.pathname.split('/')[3] ?? '';
    navigate(`/o/${id}${section ? `/${section}` : ''}`);
  };

  const signOut = async () => {
    await api.POST('/api/auth/logout').catch(() => undefined);
    clearSession();
    queryClient.clear();
    navigate('/sign-in');
  };

  return (
    <header className="topbar">
      <div className="org-switcher">
        <label htmlFor="org-switcher">Organization</label>
        <select id="org-switcher" value={orgId} onChange={(e) => switchTo(e.target.value)}>
          {memberships.map((m) => (
            <option key={m.organizationId} value={m.organizationId}>
              {m.organizationName}
            </option>
          ))}
          <option value="__new">+ New organization…</option>
        </select>
        {role ? <span className={`role role-${role}`}>{role}</span> : null}
      </div>
      <div className="user-menu">
        <span className="user-name" title={me.data?.user.email}>
          {me.data?.user.displayName}
        </span>
        <button type="button" className="btn btn-ghost btn-sm" onClick={signOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
