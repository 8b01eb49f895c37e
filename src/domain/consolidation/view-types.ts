/**
 * The working shapes of one view's computation (view.ts): translated items and companies, the
 * consolidated lines under construction, matched intercompany items, NCI figures, and the fixed
 * vocabularies of intercompany types and equity-method lines. Types and constants only, so that every
 * step's file can share them without importing the computation itself.
 */
import type { AccountType } from '../accounts.ts';
import type { Decimal } from '../money.ts';
import type { AcquiredTranslation } from './acquired-translation.ts';
import type {
  CompanyInput,
  EliminationType,
  IntercompanyTransactionInput,
  IntercompanyTransactionType,
  LineType,
} from './types.ts';

export type ItemKind = 'account' | 'priorYear' | 'cta';

/** One translated balance of a company, in units of G's minor unit. */
export interface TranslatedItem {
  /** line key: an account number, the RE line key, or CTA */
  key: string;
  kind: ItemKind;
  accountType: AccountType;
  units: bigint;
  /**
   * Equity items of a member with acquisition data: `units` split by its ledger cuts (phase i dated
   * in [cut i−1, cut i), the last phase from its group acquisition date on; acquired-translation.ts)
   */
  phases?: bigint[];
  /** how the item was translated (plain members; the contributions of a line show it) */
  detail?: TranslationDetail;
}

/** The translation of one item: its functional balance and the rate(s) applied. */
export interface TranslationDetail {
  /** Closing (monetary), Historical (equity, non-monetary), Average (revenue, expense), None (same currency) */
  basis: 'Closing' | 'Historical' | 'Average' | 'None';
  /** Σ of the functional figures (debit positive), decimal text */
  functional: string;
  /** the distinct rates applied (at most 12), each with the first date or group period it was applied for */
  rates: { rate: string; appliedFor: string }[];
  /** further distinct rates applied that `rates` does not list */
  ratesOmitted: number;
}

export interface TranslatedCompany {
  company: CompanyInput;
  items: TranslatedItem[];
  /** CTA(c) in units of G's minor unit */
  cta: bigint;
  /** Σ of the functional figures (zero for a balanced ledger) */
  functionalTotal: Decimal;
  /** set for a member with acquisition data, translated as the group sees it */
  acquired?: AcquiredTranslation;
}

/** A consolidated line under construction; amounts in units of G's minor unit. */
export interface LineAcc {
  id: string;
  key: string;
  lineType: LineType;
  companyId: string | null;
  aggregated: bigint;
  elimination: bigint;
  /** top-side adjustments (closing view) */
  adjustment: bigint;
  nci: bigint;
}

export interface IcItem {
  tx: IntercompanyTransactionInput;
  eliminationType: 'IntercompanySales' | 'IntercompanyDividends';
  /** translated, weighted amount in units of G's minor unit */
  amount: bigint;
}

/** NCI of a member; amounts in units of G's minor unit. */
export interface NciCalc {
  company: CompanyInput;
  pct: Decimal;
  netAssets: bigint;
  netIncome: bigint;
  shareOfEquity: bigint;
  shareOfNetIncome: bigint;
}

export const IC_TYPE_MAP: Record<
  IntercompanyTransactionType,
  'IntercompanySales' | 'IntercompanyDividends' | null
> = {
  Sale: 'IntercompanySales',
  Service: 'IntercompanySales',
  Royalty: 'IntercompanySales',
  ManagementFee: 'IntercompanySales',
  Dividend: 'IntercompanyDividends',
  Loan: null,
  Other: null,
};

export function mapIcType(t: IntercompanyTransactionType): EliminationType | null {
  return IC_TYPE_MAP[t];
}

export const EM_TYPES = ['EquityMethodInvestment', 'EquityMethodIncome', 'EquityMethodReserve'] as const;
export const EM_NUMBERS: Record<(typeof EM_TYPES)[number], string> = {
  EquityMethodInvestment: 'EQUITY_METHOD_INVESTMENT',
  EquityMethodIncome: 'EQUITY_METHOD_INCOME',
  EquityMethodReserve: 'EQUITY_METHOD_RESERVE',
};
