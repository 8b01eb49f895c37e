/**
 * The four built-in account templates.
 *
 * The data files hold one row per account, column for column; this module turns them into the
 * API's `TemplateAccount` records (description `null`, normal balance derived from the type).
 */
import {
  type AccountCategory,
  type AccountType,
  type CashFlowCategory,
  type NormalBalance,
  normalBalanceOf,
} from '../accounts.ts';
import { GENERAL_BUSINESS_ROWS } from './general-business.ts';
import { HOLDING_COMPANY_ROWS } from './holding-company.ts';
import { MANUFACTURING_ROWS } from './manufacturing.ts';
import { SERVICE_BUSINESS_ROWS } from './service-business.ts';
import type { TemplateRow } from './types.ts';

export type { TemplateFlag, TemplateRow } from './types.ts';

/** In the order the list endpoint returns them. */
export const TEMPLATE_TYPES = [
  'GeneralBusiness',
  'Manufacturing',
  'ServiceBusiness',
  'HoldingCompany',
] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export type TemplateAccount = {
  accountNumber: string;
  name: string;
  /** Always `null` for the built-in templates. */
  description: null;
  accountType: AccountType;
  accountCategory: AccountCategory;
  normalBalance: NormalBalance;
  parentAccountNumber: string | null;
  isPostable: boolean;
  cashFlowCategory: CashFlowCategory | null;
  isCashEquivalent: boolean;
  isIntercompany: boolean;
  isRetainedEarnings: boolean;
};

export type TemplateSummary = {
  templateType: TemplateType;
  name: string;
  description: string;
  accountCount: number;
};

export type Template = TemplateSummary & { accounts: TemplateAccount[] };

/** The account every template marks as the retained-earnings account (flag R). */
export const TEMPLATE_RETAINED_EARNINGS_ACCOUNT_NUMBER = '3300';

/**
 * The foreign-exchange gain/loss account of the templates that have one (General Business and
 * Manufacturing): applying such a template points both revaluation settings of the company at it.
 */
export const TEMPLATE_FX_GAIN_LOSS_ACCOUNT_NUMBER = '8400';

const DEFINITIONS: Record<TemplateType, { name: string; description: string; rows: readonly TemplateRow[] }> =
  {
    GeneralBusiness: {
      name: 'General Business',
      description: 'A general-purpose chart of accounts for trading and service companies.',
      rows: GENERAL_BUSINESS_ROWS,
    },
    Manufacturing: {
      name: 'Manufacturing',
      description:
        'The general business chart extended with inventory stages, manufacturing equipment and cost-of-goods-sold detail.',
      rows: MANUFACTURING_ROWS,
    },
    ServiceBusiness: {
      name: 'Service Business',
      description:
        'A chart of accounts for professional-services firms, with unbilled and deferred revenue, retainers and project costs.',
      rows: SERVICE_BUSINESS_ROWS,
    },
    HoldingCompany: {
      name: 'Holding Company',
      description:
        'A chart of accounts for holding companies, with investments in subsidiaries and associates, intercompany balances and dividend income.',
      rows: HOLDING_COMPANY_ROWS,
    },
  };

/** Case-sensitive check of a path parameter against the four template types. */
export function isTemplateType(value: string): value is TemplateType {
  return (TEMPLATE_TYPES as readonly string[]).includes(value);
}

/** Numeric order of account numbers (no leading zeros, so shorter means smaller). */
export function compareAccountNumbers(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function toAccount(row: TemplateRow): TemplateAccount {
  const [accountNumber, name, accountType, accountCategory, parent, isPostable, cashFlowCategory, flag] = row;
  return {
    accountNumber,
    name,
    description: null,
    accountType,
    accountCategory,
    normalBalance: normalBalanceOf(accountType),
    parentAccountNumber: parent,
    isPostable,
    cashFlowCategory,
    isCashEquivalent: flag === 'C',
    isIntercompany: flag === 'I',
    isRetainedEarnings: flag === 'R',
  };
}

function summaryOf(templateType: TemplateType): TemplateSummary {
  const { name, description, rows } = DEFINITIONS[templateType];
  return { templateType, name, description, accountCount: rows.length };
}

/** Summaries in this order: GeneralBusiness, Manufacturing, ServiceBusiness, HoldingCompany. */
export function listTemplates(): TemplateSummary[] {
  return TEMPLATE_TYPES.map(summaryOf);
}

/** A template with its accounts ordered by account number (fresh objects on every call). */
export function getTemplate(templateType: TemplateType): Template {
  if (!isTemplateType(templateType)) throw new RangeError(`Unknown account template ${String(templateType)}`);
  const accounts = DEFINITIONS[templateType].rows
    .map(toAccount)
    .sort((a, b) => compareAccountNumbers(a.accountNumber, b.accountNumber));
  return { ...summaryOf(templateType), accounts };
}

/**
 * Hierarchy level of every account (1 = top level, parent's level + 1 otherwise), keyed by account
 * number. Throws when a parent is missing or the parent links form a cycle.
 */
export function hierarchyLevels(
  accounts: readonly { accountNumber: string; parentAccountNumber: string | null }[],
): Map<string, number> {
  const parentOf = new Map(accounts.map((a) => [a.accountNumber, a.parentAccountNumber]));
  const levels = new Map<string, number>();
  const levelOf = (accountNumber: string, seen: Set<string>): number => {
    const known = levels.get(accountNumber);
    if (known !== undefined) return known;
    if (!parentOf.has(accountNumber)) throw new Error(`Unknown parent account ${accountNumber}`);
    if (seen.has(accountNumber)) throw new Error(`Circular parent reference at account ${accountNumber}`);
    seen.add(accountNumber);
    const parent = parentOf.get(accountNumber) ?? null;
    const level = parent === null ? 1 : levelOf(parent, seen) + 1;
    levels.set(accountNumber, level);
    return level;
  };
  for (const a of accounts) levelOf(a.accountNumber, new Set());
  return levels;
}

/**
 * The accounts ordered so that every parent comes before its children (by hierarchy level, then
 * account number): the order in which applying a template can create them.
 */
export function sortByHierarchy<T extends { accountNumber: string; parentAccountNumber: string | null }>(
  accounts: readonly T[],
): T[] {
  const levels = hierarchyLevels(accounts);
  return [...accounts].sort(
    (a, b) =>
      (levels.get(a.accountNumber) ?? 0) - (levels.get(b.accountNumber) ?? 0) ||
      compareAccountNumbers(a.accountNumber, b.accountNumber),
  );
}
