/**
 * The journal-entry workflow as data: the statuses, the moves between them, and who may make them.
 *
 * Pure. The service checks each request against these tables, and the one-statement SQL paths of the
 * journal module build their status literals and guards from them, so that every rule is written
 * once: a new status or move is added here and nowhere else.
 */

export const ENTRY_STATUSES = ['Draft', 'PendingApproval', 'Approved', 'Posted', 'Reversed'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

export const ENTRY_TYPES = ['Standard', 'Adjusting', 'Closing', 'Reversing', 'Recurring'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

export const SOURCE_MODULES = [
  'GeneralLedger',
  'AccountsPayable',
  'AccountsReceivable',
  'Payroll',
  'Inventory',
  'FixedAssets',
] as const;
export type SourceModule = (typeof SOURCE_MODULES)[number];

/** The type and source of an entry that names none. */
export const DEFAULT_ENTRY_TYPE = 'Standard' satisfies EntryType;
export const DEFAULT_SOURCE_MODULE = 'GeneralLedger' satisfies SourceModule;

/** The status of an entry created through the API. */
export const INITIAL_STATUS = 'Draft' satisfies EntryStatus;

/** The status of the entries the service writes already booked: reversals and closing entries. */
export const BOOKED_STATUS = 'Posted' satisfies EntryStatus;

/** The type of the reversal entry a reversal writes. */
export const REVERSAL_ENTRY_TYPE = 'Reversing' satisfies EntryType;

/** Entries not yet in the ledger: they block period close, year close and company deactivation. */
export const UNPOSTED_STATUSES = ['Draft', 'PendingApproval', 'Approved'] as const satisfies EntryStatus[];

/** The operations on an existing entry. */
export type Operation = 'update' | 'delete' | 'submit' | 'approve' | 'reject' | 'post' | 'reverse';

/** A move: the statuses an operation may start from, and the status it leaves (null: deleted). */
export interface Move {
  readonly from: readonly EntryStatus[];
  readonly to: EntryStatus | null;
}

/**
 * Every move of the workflow. Edits stay in `Draft`; an entry goes to approval and comes back when it
 * is rejected; `post` is the move of an organization that requires approval (`DIRECT_POST` of one that
 * does not); only a posted entry is reversed.
 */
export const MOVES = {
  update: { from: ['Draft'], to: 'Draft' },
  delete: { from: ['Draft'], to: null },
  submit: { from: ['Draft'], to: 'PendingApproval' },
  approve: { from: ['PendingApproval'], to: 'Approved' },
  reject: { from: ['PendingApproval'], to: 'Draft' },
  post: { from: ['Approved'], to: 'Posted' },
  reverse: { from: ['Posted'], to: 'Reversed' },
} as const satisfies Record<Operation, Move>;

/** Posting without approval: from any unposted status. */
export const DIRECT_POST = { from: UNPOSTED_STATUSES, to: 'Posted' } as const satisfies Move;

/** What the organization's settings decide about the workflow. */
export interface WorkflowPolicy {
  requireApproval: boolean;
  enforceSegregationOfDuties: boolean;
}

/** The move an operation makes under the organization's policy (only `post` depends on it). */
export function moveOf(operation: Operation, policy?: Pick<WorkflowPolicy, 'requireApproval'>): Move {
  return operation === 'post' && policy?.requireApproval === false ? DIRECT_POST : MOVES[operation];
}

export type TransitionRefusal =
  | { refusal: 'AlreadyReversed'; entryId: string; reversingEntryId: string | null }
  | {
      refusal: 'InvalidStatusTransition';
      entryId: string;
      operation: Operation;
      currentStatus: string;
      allowedStatuses: EntryStatus[];
    };

/** The entry facts the workflow looks at. */
export interface WorkflowEntry {
  id: string;
  status: string;
  createdBy: string;
  reversingEntryId: string | null;
}

/**
 * Whether an entry may undergo `operation`, in order: an entry already reversed has its own refusal;
 * otherwise its status must be one the move starts from.
 */
export function transitionRefusal(
  operation: Operation,
  entry: Pick<WorkflowEntry, 'id' | 'status' | 'reversingEntryId'>,
  policy?: Pick<WorkflowPolicy, 'requireApproval'>,
): TransitionRefusal | null {
  if (operation === 'reverse' && entry.status === MOVES.reverse.to) {
    return { refusal: 'AlreadyReversed', entryId: entry.id, reversingEntryId: entry.reversingEntryId };
  }
  const move = moveOf(operation, policy);
  if ((move.from as readonly string[]).includes(entry.status)) return null;
  return {
    refusal: 'InvalidStatusTransition',
    entryId: entry.id,
    operation,
    currentStatus: entry.status,
    allowedStatuses: [...move.from],
  };
}

/** The people a segregation rule looks at: the caller, and the user an entry is posted in the name of. */
export type Actor = 'caller' | 'postedBy';

/**
 * Segregation of duties, when the organization enforces it: the creator of an entry may not approve
 * it, and may neither post it nor have it posted in their name unless it went through approval (its
 * status is the one approval leaves, so someone else approved it). The actors are checked in order.
 */
export const SEGREGATION = {
  approve: { exemptStatus: null, actors: ['caller'] },
  post: { exemptStatus: MOVES.approve.to, actors: ['caller', 'postedBy'] },
} as const satisfies Record<string, { exemptStatus: EntryStatus | null; actors: readonly Actor[] }>;

export type SegregatedOperation = keyof typeof SEGREGATION;

export interface SegregationRefusal {
  refusal: 'SegregationOfDuties';
  entryId: string;
  userId: string;
}

/** Segregation of duties for `operation` on an entry, or null when it allows it. */
export function segregationRefusal<O extends SegregatedOperation>(
  operation: O,
  entry: Pick<WorkflowEntry, 'id' | 'status' | 'createdBy'>,
  actors: Record<(typeof SEGREGATION)[O]['actors'][number], string>,
  policy: Pick<WorkflowPolicy, 'enforceSegregationOfDuties'>,
): SegregationRefusal | null {
  if (!policy.enforceSegregationOfDuties) return null;
  const rule: { exemptStatus: string | null; actors: readonly Actor[] } = SEGREGATION[operation];
  if (entry.status === rule.exemptStatus) return null;
  const named = actors as Partial<Record<Actor, string>>;
  for (const actor of rule.actors) {
    const userId = named[actor]!;
    if (userId === entry.createdBy) return { refusal: 'SegregationOfDuties', entryId: entry.id, userId };
  }
  return null;
}
