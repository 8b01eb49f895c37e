/** SQL of the company reports besides their figures (ledger/report-figures.ts): the accounts. */
import type { Queryable } from '../../db/client.ts';
import { inOrg } from '../../db/rows.ts';
import { accounts } from '../../db/schema/index.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import type { ReportAccount } from '../../domain/reports/index.ts';

/** Every account of the company, active or not, with the fields the statement builders need. */
export async function loadReportAccounts(
  db: Queryable,
  organizationId: string,
  companyId: string,
  retainedEarningsAccountId: string | null,
): Promise<ReportAccount[]> {
  const rows = await db
    .select({
      id: accounts.id,
      accountNumber: accounts.accountNumber,
      name: accounts.name,
      accountType: accounts.accountType,
      accountCategory: accounts.accountCategory,
      isPostable: accounts.isPostable,
      isCashEquivalent: accounts.isCashEquivalent,
      cashFlowCategory: accounts.cashFlowCategory,
    })
    .from(accounts)
    .where(inOrg(accounts, organizationId, { companyId }));
  return rows.map((r) => ({
    id: r.id,
    accountNumber: r.accountNumber,
    name: r.name,
    accountType: r.accountType as AccountType,
    accountCategory: r.accountCategory as AccountCategory,
    isPostable: r.isPostable,
    isCashEquivalent: r.isCashEquivalent,
    cashFlowCategory: r.cashFlowCategory as CashFlowCategory | null,
    isRetainedEarningsAccount: retainedEarningsAccountId !== null && r.id === retainedEarningsAccountId,
  }));
}
