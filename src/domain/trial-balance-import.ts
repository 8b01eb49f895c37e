/**
 * Trial-balance imports, the accounting part: checking the rows of a file, and the entry that brings
 * a company's books to the imported balances.
 *
 * - Each row names an account by number and gives its balance as a debit or a credit (decimal text in
 *   the company's functional currency, at most its minor-unit digits; an empty cell is zero).
 *   Every problem is reported with the row (1-based, the header row excluded) and the column.
 * - The file must balance: Σ debit = Σ credit.
 * - `Opening`: the entry posts the imported balances as they are.
 * - `Periodic`: the entry posts, per account, the imported balance minus the balance already in the
 *   books at the date; an account of the books missing from the file is imported as zero. Both sides
 *   balance, so the differences do too.
 *
 * Balances here are debit-positive nets (debit − credit).
 */
import { ACCOUNT_CATEGORIES, type AccountCategory } from './accounts.ts';
import { minorUnits } from './codes.ts';
import { type Decimal, dec, fractionDigits, ZERO } from './money.ts';

export const IMPORT_MODES = ['Opening', 'Periodic'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/** A row as the file gives it (CSV cells or JSON strings). */
export interface ImportRowInput {
  accountNumber?: string | null | undefined;
  accountName?: string | null | undefined;
  debit?: string | null | undefined;
  credit?: string | null | undefined;
  currency?: string | null | undefined;
  category?: string | null | undefined;
}

/** A problem of a row: its 1-based number (0: the header row) and column. */
export interface RowError {
  row: number;
  column: string;
  message: string;
}

export interface ImportRow {
  row: number;
  accountNumber: string;
  accountName: string | null;
  debit: Decimal;
  credit: Decimal;
  /** debit − credit */
  net: Decimal;
  category: AccountCategory | null;
}

/** Account numbers: 4–10 digits without a leading zero. */
const ACCOUNT_NUMBER = /^[1-9][0-9]{3,9}$/;
const AMOUNT = /^(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/;

/** A range → category rule for accounts the import creates. */
export interface CategoryRule {
  from: string;
  to: string;
  category: string;
}

/** Numeric order of account numbers (digits without leading zeros). */
export function compareAccountNumber(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The category the rules give an account number (first matching rule), or null. */
export function categoryByRules(
  accountNumber: string,
  rules: readonly CategoryRule[],
): AccountCategory | null {
  for (const r of rules) {
    if (compareAccountNumber(accountNumber, r.from) >= 0 && compareAccountNumber(accountNumber, r.to) <= 0) {
      return r.category as AccountCategory;
    }
  }
  return null;
}

const isCategory = (c: string): c is AccountCategory => (ACCOUNT_CATEGORIES as readonly string[]).includes(c);

/** Problems of the category rules themselves (reported on row 0, column `categoryRules`). */
export function categoryRuleErrors(rules: readonly CategoryRule[]): RowError[] {
  const errors: RowError[] = [];
  rules.forEach((r, i) => {
    const where = `Rule ${i + 1}`;
    if (!ACCOUNT_NUMBER.test(r.from) || !ACCOUNT_NUMBER.test(r.to)) {
      errors.push({
        row: 0,
        column: 'categoryRules',
        message: `${where}: from and to must be account numbers`,
      });
    } else if (compareAccountNumber(r.from, r.to) > 0) {
      errors.push({ row: 0, column: 'categoryRules', message: `${where}: from is after to` });
    }
    if (!isCategory(r.category)) {
      errors.push({
        row: 0,
        column: 'categoryRules',
        message: `${where}: unknown account category ${r.category}`,
      });
    }
  });
  return errors;
}

function amountOf(
  text: string | null | undefined,
  row: number,
  column: string,
  digits: number,
  errors: RowError[],
): Decimal {
  const t = (text ?? '').trim();
  if (t === '') return ZERO;
  if (!AMOUNT.test(t)) {
    errors.push({ row, column, message: 'Must be a non-negative decimal number such as 1250.00' });
    return ZERO;
  }
  if (fractionDigits(t) > digits) {
    errors.push({ row, column, message: `At most ${digits} decimal places` });
    return ZERO;
  }
  return dec(t);
}

/**
 * Checks the rows of a file: account numbers, amounts, currency (`currency`: the company's functional
 * currency), categories, duplicates. Returns the rows that passed and every problem found.
 */
export function checkImportRows(
  rows: readonly ImportRowInput[],
  currency: string,
): { rows: ImportRow[]; errors: RowError[] } {
  const errors: RowError[] = [];
  const out: ImportRow[] = [];
  const seen = new Map<string, number>();
  const digits = minorUnits(currency);
  rows.forEach((input, i) => {
    const row = i + 1;
    const before = errors.length;
    const accountNumber = (input.accountNumber ?? '').trim();
    if (accountNumber === '') {
      errors.push({ row, column: 'accountNumber', message: 'Required' });
    } else if (!ACCOUNT_NUMBER.test(accountNumber)) {
      errors.push({ row, column: 'accountNumber', message: 'Must be 4–10 digits without a leading zero' });
    } else if (seen.has(accountNumber)) {
      errors.push({
        row,
        column: 'accountNumber',
        message: `Account ${accountNumber} is already on row ${seen.get(accountNumber)}`,
      });
    } else {
      seen.set(accountNumber, row);
    }
    const debit = amountOf(input.debit, row, 'debit', digits, errors);
    const credit = amountOf(input.credit, row, 'credit', digits, errors);
    if (debit.greaterThan(0) && credit.greaterThan(0)) {
      errors.push({ row, column: 'credit', message: 'Give a debit or a credit, not both' });
    }
    const cur = (input.currency ?? '').trim();
    if (cur !== '' && cur.toUpperCase() !== currency) {
      errors.push({
        row,
        column: 'currency',
        message: `Balances are imported in the company's functional currency ${currency}`,
      });
    }
    const category = (input.category ?? '').trim();
    if (category !== '' && !isCategory(category)) {
      errors.push({ row, column: 'category', message: `Unknown account category ${category}` });
    }
    if (errors.length > before) return;
    const name = (input.accountName ?? '').trim();
    out.push({
      row,
      accountNumber,
      accountName: name === '' ? null : name,
      debit,
      credit,
      net: debit.minus(credit),
      category: category === '' ? null : (category as AccountCategory),
    });
  });
  return { rows: out, errors };
}

/** Σ debit and Σ credit of the rows. */
export function importTotals(rows: readonly ImportRow[]): { debit: Decimal; credit: Decimal } {
  let debit = ZERO;
  let credit = ZERO;
  for (const r of rows) {
    debit = debit.plus(r.debit);
    credit = credit.plus(r.credit);
  }
  return { debit, credit };
}

export interface BalanceDifference {
  accountKey: string;
  current: Decimal;
  imported: Decimal;
  /** imported − current: what the entry posts (debit when positive). */
  difference: Decimal;
}

/**
 * Per account (any key: ids, numbers), the amount the import posts: the imported balance in
 * `Opening` mode; in `Periodic` mode the imported balance minus the current one, over the accounts of
 * the file and every account of the books (missing from the file: imported as zero). Accounts in file
 * order, then the others in the order of `current`.
 */
export function importDifferences(
  mode: ImportMode,
  imported: ReadonlyMap<string, Decimal>,
  current: ReadonlyMap<string, Decimal>,
): BalanceDifference[] {
  const out: BalanceDifference[] = [];
  for (const [key, value] of imported) {
    const now = mode === 'Periodic' ? (current.get(key) ?? ZERO) : ZERO;
    out.push({ accountKey: key, current: now, imported: value, difference: value.minus(now) });
  }
  if (mode === 'Periodic') {
    for (const [key, now] of current) {
      if (imported.has(key) || now.isZero()) continue;
      out.push({ accountKey: key, current: now, imported: ZERO, difference: now.negated() });
    }
  }
  return out;
}

/**
 * The lines of an import split into entries of at most `maxLines` lines, each balanced on its own
 * (an entry's line numbers are bounded, a large trial balance is not). When every line fits in one
 * entry the lines stay as they are. Otherwise debits are matched against credits in order: each match
 * moves the smaller remaining amount into the current entry on both sides, so every entry balances,
 * an account appears at most once per entry, and each account's amounts over all entries add up to its
 * line. Amounts are debit-positive.
 */
export function balancedChunks<K>(
  lines: readonly { key: K; amount: Decimal }[],
  maxLines: number,
): { key: K; amount: Decimal }[][] {
  if (lines.length <= maxLines) return [lines.map((l) => ({ ...l }))];
  const debits = lines.filter((l) => l.amount.greaterThan(0)).map((l) => ({ key: l.key, rest: l.amount }));
  const credits = lines
    .filter((l) => l.amount.lessThan(0))
    .map((l) => ({ key: l.key, rest: l.amount.negated() }));
  const chunks: Map<K, Decimal>[] = [];
  let current = new Map<K, Decimal>();
  let i = 0;
  let j = 0;
  while (i < debits.length && j < credits.length) {
    if (current.size > maxLines - 2) {
      chunks.push(current);
      current = new Map();
    }
    const d = debits[i]!;
    const c = credits[j]!;
    const m = d.rest.lessThan(c.rest) ? d.rest : c.rest;
    current.set(d.key, (current.get(d.key) ?? ZERO).plus(m));
    current.set(c.key, (current.get(c.key) ?? ZERO).minus(m));
    d.rest = d.rest.minus(m);
    c.rest = c.rest.minus(m);
    if (d.rest.isZero()) i++;
    if (c.rest.isZero()) j++;
  }
  if (current.size > 0) chunks.push(current);
  return chunks.map((chunk) => [...chunk].map(([key, amount]) => ({ key, amount })));
}
