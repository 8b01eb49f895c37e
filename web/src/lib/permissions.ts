/**
 * What the signed-in user may do, from the role of its membership (the API's permission matrix). The
 * console only hides what the API would refuse; the API still decides.
 */
import type { EntryStatus, Organization, Role } from '../api/types.ts';

const RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };

export function atLeast(role: Role | null | undefined, min: Role): boolean {
  return role ? RANK[role] >= RANK[min] : false;
}

export type EntryAction = 'edit' | 'delete' | 'submit' | 'approve' | 'reject' | 'post' | 'reverse';

export interface EntryFacts {
  status: EntryStatus;
  createdBy: string;
  sourceDocumentRef: string | null;
}

/**
 * The workflow buttons an entry shows: the transitions its status allows (draft → submitted →
 * approved → posted → reversed), for the user's role, under the organization's approval and
 * segregation-of-duties settings.
 */
export function entryActions(
  entry: EntryFacts,
  role: Role | null | undefined,
  settings: Pick<Organization['settings'], 'requireApproval' | 'enforceSegregationOfDuties'>,
  userId: string,
): EntryAction[] {
  const member = atLeast(role, 'member');
  const admin = atLeast(role, 'admin');
  const ownEntry = entry.createdBy === userId;
  const sod = settings.enforceSegregationOfDuties;
  const directPost = !settings.requireApproval && admin && !(sod && ownEntry);
  const actions: EntryAction[] = [];
  switch (entry.status) {
    case 'Draft':
      if (member) actions.push('edit', 'submit', 'delete');
      if (directPost) actions.push('post');
      break;
    case 'PendingApproval':
      if (admin && !(sod && ownEntry)) actions.push('approve');
      if (admin) actions.push('reject');
      if (directPost) actions.push('post');
      break;
    case 'Approved':
      if (admin) actions.push('post');
      break;
    case 'Posted':
      if (admin && !(entry.sourceDocumentRef ?? '').startsWith('year-end-close:')) actions.push('reverse');
      break;
    case 'Reversed':
      break;
  }
  return actions;
}
