/**
 * Applying a built-in account template to a company, inside the caller's
 * transaction. Shared by `POST /account-templates/{type}/apply` and company creation with
 * `accountTemplate`.
 *
 * Identifiers are generated in code first, so every parent id is known before the insert, and the
 * whole chart is written with one multi-row INSERT (no per-account round trips).
 *
 * The charts module holds what the company and the account endpoints share about a company's chart
 * (this, and the account errors both report), so that companies and accounts do not import each
 * other: accounts look companies up, companies apply templates through here.
 */
import { and, eq } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../../db/client.ts';
import { accounts, companies } from '../../db/schema/index.ts';
import {
  getTemplate,
  hierarchyLevels,
  sortByHierarchy,
  TEMPLATE_FX_GAIN_LOSS_ACCOUNT_NUMBER,
  TEMPLATE_RETAINED_EARNINGS_ACCOUNT_NUMBER,
  type TemplateType,
} from '../../domain/templates/index.ts';

export interface AppliedTemplate {
  templateType: TemplateType;
  companyId: string;
  createdCount: number;
  retainedEarningsAccountId: string;
  /** The template's foreign-exchange gain/loss account, set for both revaluation settings (or null). */
  fxGainLossAccountId: string | null;
}

/**
 * Creates every account of the template in the company and points the company's
 * `retainedEarningsAccountId` at the created account 3300 and, when the template has a foreign-exchange
 * gain/loss account (8400 of the general and manufacturing charts), both revaluation settings at it. The caller has checked that the company
 * has no account yet (and holds a lock on the company row), and records the audit entry.
 */
export async function insertTemplateAccounts(
  tx: Queryable,
  input: { organizationId: string; companyId: string; templateType: TemplateType; now?: Date },
): Promise<AppliedTemplate> {
  const template = getTemplate(input.templateType);
  const ordered = sortByHierarchy(template.accounts);
  const levels = hierarchyLevels(template.accounts);
  const idOf = new Map(ordered.map((a) => [a.accountNumber, uuidv7()]));
  const now = input.now ?? new Date();
  const rows = ordered.map((a) => ({
    id: idOf.get(a.accountNumber)!,
    organizationId: input.organizationId,
    companyId: input.companyId,
    accountNumber: a.accountNumber,
    name: a.name,
    description: null,
    accountType: a.accountType,
    accountCategory: a.accountCategory,
    parentAccountId: a.parentAccountNumber === null ? null : idOf.get(a.parentAccountNumber)!,
    hierarchyLevel: levels.get(a.accountNumber)!,
    isPostable: a.isPostable,
    isActive: true,
    isIntercompany: a.isIntercompany,
    intercompanyPartnerId: null,
    cashFlowCategory: a.cashFlowCategory,
    isCashEquivalent: a.isCashEquivalent,
    isNonMonetary: false,
    createdAt: now,
    updatedAt: now,
    deactivatedAt: null,
  }));
  await tx.insert(accounts).values(rows);
  const retainedEarnings = template.accounts.find((a) => a.isRetainedEarnings);
  const retainedEarningsAccountId = idOf.get(
    retainedEarnings?.accountNumber ?? TEMPLATE_RETAINED_EARNINGS_ACCOUNT_NUMBER,
  )!;
  const fx = template.accounts.find((a) => a.accountNumber === TEMPLATE_FX_GAIN_LOSS_ACCOUNT_NUMBER);
  const fxGainLossAccountId = fx && /foreign exchange/i.test(fx.name) ? idOf.get(fx.accountNumber)! : null;
  await tx
    .update(companies)
    .set({
      retainedEarningsAccountId,
      ...(fxGainLossAccountId
        ? {
            unrealizedFxGainLossAccountId: fxGainLossAccountId,
            realizedFxGainLossAccountId: fxGainLossAccountId,
          }
        : {}),
      updatedAt: now,
    })
    .where(and(eq(companies.organizationId, input.organizationId), eq(companies.id, input.companyId)));
  return {
    templateType: input.templateType,
    companyId: input.companyId,
    createdCount: rows.length,
    retainedEarningsAccountId,
    fxGainLossAccountId,
  };
}

/** The `changes` of an `ApplyTemplate` audit entry (one entry per application, on the company). */
export function templateAuditChanges(
  templateType: string,
  createdCount: number,
  previousRetainedEarningsAccountId: string | null,
  applied: { retainedEarningsAccountId: string },
) {
  return {
    accountTemplate: { from: null, to: templateType },
    accountCount: { from: 0, to: createdCount },
    retainedEarningsAccountId: {
      from: previousRetainedEarningsAccountId,
      to: applied.retainedEarningsAccountId,
    },
  };
}
