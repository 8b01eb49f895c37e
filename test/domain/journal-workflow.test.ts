/** The journal workflow and posting rules as data (src/domain/journal): moves, refusals, their order. */
import { describe, expect, it } from 'vitest';
import {
  type LineAccountFacts,
  type PartnerAccountFacts,
  closingEntryReversalRefusal,
  companyRefusal,
  entryPeriod,
  isClosingRelated,
  lineAccountsRefusal,
  linePartners,
  periodRefusal,
  yearEndRef,
} from '../../src/domain/journal/rules.ts';
import {
  ENTRY_STATUSES,
  MOVES,
  moveOf,
  segregationRefusal,
  transitionRefusal,
  UNPOSTED_STATUSES,
} from '../../src/domain/journal/workflow.ts';

const entry = (status: string) => ({ id: 'e1', status, createdBy: 'ann', reversingEntryId: null });
const USD_DECEMBER = { month: 12, day: 31 };

describe('workflow moves', () => {
  it('allow each operation from its source statuses only', () => {
    const allowed = (operation: keyof typeof MOVES, policy?: { requireApproval: boolean }) =>
      ENTRY_STATUSES.filter((s) => transitionRefusal(operation, entry(s), policy) === null);
    expect(allowed('update')).toEqual(['Draft']);
    expect(allowed('delete')).toEqual(['Draft']);
    expect(allowed('submit')).toEqual(['Draft']);
    expect(allowed('approve')).toEqual(['PendingApproval']);
    expect(allowed('reject')).toEqual(['PendingApproval']);
    expect(allowed('post', { requireApproval: true })).toEqual(['Approved']);
    expect(allowed('post', { requireApproval: false })).toEqual(['Draft', 'PendingApproval', 'Approved']);
    expect(allowed('reverse')).toEqual(['Posted']);
  });

  it('post directly from every unposted status when approval is not required', () => {
    expect(moveOf('post', { requireApproval: false }).from).toEqual(UNPOSTED_STATUSES);
    expect(moveOf('post', { requireApproval: true }).from).toEqual(['Approved']);
  });

  it('refuse with the operation, the current status and the allowed ones; a reversed entry apart', () => {
    expect(transitionRefusal('approve', entry('Draft'))).toEqual({
      refusal: 'InvalidStatusTransition',
      entryId: 'e1',
      operation: 'approve',
      currentStatus: 'Draft',
      allowedStatuses: ['PendingApproval'],
    });
    expect(transitionRefusal('reverse', { ...entry('Reversed'), reversingEntryId: 'e2' })).toEqual({
      refusal: 'AlreadyReversed',
      entryId: 'e1',
      reversingEntryId: 'e2',
    });
  });
});

describe('segregation of duties', () => {
  const enforced = { enforceSegregationOfDuties: true };

  it('keeps the creator from approving, only when enforced', () => {
    const pending = entry('PendingApproval');
    expect(segregationRefusal('approve', pending, { caller: 'ann' }, enforced)).toMatchObject({
      userId: 'ann',
    });
    expect(segregationRefusal('approve', pending, { caller: 'bob' }, enforced)).toBeNull();
    expect(
      segregationRefusal('approve', pending, { caller: 'ann' }, { enforceSegregationOfDuties: false }),
    ).toBeNull();
  });

  it('keeps the creator from posting an unapproved entry, as caller first, then as posting user', () => {
    const draft = entry('Draft');
    expect(segregationRefusal('post', draft, { caller: 'ann', postedBy: 'ann' }, enforced)).toMatchObject({
      userId: 'ann',
    });
    expect(segregationRefusal('post', draft, { caller: 'bob', postedBy: 'ann' }, enforced)).toMatchObject({
      userId: 'ann',
    });
    expect(segregationRefusal('post', draft, { caller: 'bob', postedBy: 'cy' }, enforced)).toBeNull();
    // Someone else approved it: the creator may post it.
    expect(
      segregationRefusal('post', entry('Approved'), { caller: 'ann', postedBy: 'ann' }, enforced),
    ).toBeNull();
  });
});

describe('posting rules', () => {
  const account = {
    companyId: 'c1',
    isActive: true,
    isPostable: true,
    isIntercompany: false,
    intercompanyPartnerId: null,
  };

  it('refuse the company when missing, then when inactive', () => {
    expect(companyRefusal('c1', null)).toEqual({ refusal: 'CompanyNotFound', companyId: 'c1' });
    expect(companyRefusal('c1', { isActive: false })).toEqual({
      refusal: 'CompanyInactive',
      companyId: 'c1',
    });
    expect(companyRefusal('c1', { isActive: true })).toBeNull();
  });

  it('refuse the first line whose account fails, checks in their order', () => {
    const lines = [
      { lineNumber: 1, accountId: 'a1' },
      { lineNumber: 2, accountId: 'a2' },
    ];
    const reason = (a2: LineAccountFacts | undefined) =>
      lineAccountsRefusal(lines, new Map(Object.entries({ a1: account, ...(a2 ? { a2 } : {}) })), 'c1');
    expect(reason(undefined)).toEqual({
      refusal: 'InvalidLineAccount',
      lineNumber: 2,
      accountId: 'a2',
      reason: 'NotFound',
    });
    expect(reason({ ...account, companyId: 'c2', isActive: false })?.reason).toBe('DifferentCompany');
    expect(reason({ ...account, isActive: false, isPostable: false })?.reason).toBe('Inactive');
    expect(reason({ ...account, isPostable: false })?.reason).toBe('NotPostable');
    expect(reason(account)).toBeNull();
  });

  it("give each line its partner, or its intercompany account's", () => {
    const accounts = new Map<string, PartnerAccountFacts>([
      ['a1', account],
      ['ic', { ...account, isIntercompany: true, intercompanyPartnerId: 'c2' }],
    ]);
    const known = new Set(['c1', 'c2', 'c3']);
    const lines = [
      { lineNumber: 1, accountId: 'a1', partner: null },
      { lineNumber: 2, accountId: 'ic', partner: null },
      { lineNumber: 3, accountId: 'a1', partner: 'c3' },
    ];
    expect(linePartners(lines, accounts, known, 'c1')).toEqual(
      new Map([
        [1, null],
        [2, 'c2'],
        [3, 'c3'],
      ]),
    );
    const refusal = (partner: string, accountId = 'a1') =>
      linePartners([{ lineNumber: 1, accountId, partner }], accounts, known, 'c1');
    expect(refusal('c3', 'ic')).toMatchObject({ reason: 'AccountPartnerDiffers' });
    expect(refusal('c9')).toMatchObject({ reason: 'NotACompany' });
    expect(refusal('c1')).toMatchObject({ reason: 'OwnCompany' });
  });

  it("take the date's period, or the one given when it is that period or the adjustment period", () => {
    expect(entryPeriod(USD_DECEMBER, '2026-03-15', null)).toEqual({ year: 2026, period: 3 });
    expect(entryPeriod(USD_DECEMBER, '2026-03-15', { year: 2026, period: 13 })).toEqual({
      year: 2026,
      period: 13,
    });
    expect(entryPeriod(USD_DECEMBER, '2026-03-15', { year: 2026, period: 4 })).toEqual({
      refusal: 'FiscalPeriodMismatch',
      transactionDate: '2026-03-15',
      fiscalPeriod: { year: 2026, period: 4 },
      expectedFiscalPeriod: { year: 2026, period: 3 },
    });
    expect(entryPeriod(USD_DECEMBER, '3000-01-01', null)).toEqual({ refusal: 'FiscalYearOutOfRange' });
  });

  it('accept an open period only', () => {
    const ref = { year: 2026, period: 3 };
    expect(periodRefusal('c1', ref, { status: 'Open' })).toBeNull();
    expect(periodRefusal('c1', ref, { status: 'Closed' })).toEqual({
      refusal: 'FiscalPeriodClosed',
      companyId: 'c1',
      fiscalYear: 2026,
      periodNumber: 3,
    });
  });

  it('mark closing entries and refuse reversing a year-end closing entry', () => {
    expect(isClosingRelated('Closing')).toBe(true);
    expect(isClosingRelated('Reversing')).toBe(false);
    expect(closingEntryReversalRefusal({ id: 'e1', sourceDocumentRef: yearEndRef('fy1') })).toEqual({
      refusal: 'ClosingEntryReversal',
      entryId: 'e1',
      fiscalYearId: 'fy1',
    });
    expect(closingEntryReversalRefusal({ id: 'e1', sourceDocumentRef: 'invoice 7' })).toBeNull();
  });
});
