/**
 * The organization a page belongs to (the `:orgId` of the URL), with the user's role in it and its
 * settings, for every screen under /o/:orgId.
 */
import { createContext, useContext } from 'react';
import type { Me, Organization, Role } from '../api/types.ts';

export interface OrgContextValue {
  orgId: string;
  org: Organization;
  role: Role;
  me: Me;
}

export const OrgContext = createContext<OrgContextValue | null>(null);

export function useOrg(): OrgContextValue {
  const value = useContext(OrgContext);
  if (!value) throw new Error('useOrg outside an organization page');
  return value;
}
