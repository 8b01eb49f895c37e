/**
 * Shared queries (TanStack Query): the signed-in user, the organization and the small lists that many
 * screens name things from (companies, accounts of a company, consolidation groups). Keys start with
 * the organization id, so switching organizations never shows another organization's cached data.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, call, fetchAll } from '../api/client.ts';
import type { Account, Company, ConsolidationGroup } from '../api/types.ts';

export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: () => call(api.GET('/api/auth/me')),
  staleTime: 60_000,
});

export const orgQuery = (orgId: string) =>
  queryOptions({
    queryKey: ['org', orgId],
    queryFn: () => call(api.GET('/api/v1/organizations/{id}', { params: { path: { id: orgId } } })),
    staleTime: 60_000,
  });

export const companiesQuery = (orgId: string) =>
  queryOptions({
    queryKey: ['org', orgId, 'companies'],
    queryFn: () =>
      fetchAll<Company>(async (offset, limit) => {
        const page = await call(
          api.GET('/api/v1/companies', { params: { query: { organizationId: orgId, limit, offset } } }),
        );
        return { items: page.companies, total: page.total };
      }),
    staleTime: 30_000,
  });

export const accountsQuery = (orgId: string, companyId: string) =>
  queryOptions({
    queryKey: ['org', orgId, 'accounts', companyId],
    queryFn: () =>
      fetchAll<Account>(async (offset, limit) => {
        const page = await call(
          api.GET('/api/v1/accounts', {
            params: { query: { organizationId: orgId, companyId, limit, offset } },
          }),
        );
        return { items: page.accounts, total: page.total };
      }),
    staleTime: 30_000,
    enabled: companyId !== '',
  });

export const groupsQuery = (orgId: string) =>
  queryOptions({
    queryKey: ['org', orgId, 'groups'],
    queryFn: () =>
      fetchAll<ConsolidationGroup>(async (offset, limit) => {
        const page = await call(
          api.GET('/api/v1/consolidation/groups', {
            params: { query: { organizationId: orgId, limit, offset } },
          }),
        );
        return { items: page.groups, total: page.total };
      }),
    staleTime: 30_000,
  });

export const templatesQuery = queryOptions({
  queryKey: ['account-templates'],
  queryFn: () => call(api.GET('/api/v1/account-templates')),
  staleTime: Infinity,
});

/** Companies of the organization, with a lookup by id. */
export function useCompanies(orgId: string) {
  const query = useQuery(companiesQuery(orgId));
  const companies = query.data ?? [];
  const byId = new Map(companies.map((c) => [c.id, c]));
  return { ...query, companies, byId, name: (id: string | null | undefined) => nameOf(byId, id) };
}

function nameOf(byId: Map<string, Company>, id: string | null | undefined): string {
  if (!id) return '—';
  return byId.get(id)?.name ?? id.slice(0, 8);
}
