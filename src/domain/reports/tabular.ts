/**
 * Reports as tables: the one shape the CSV and spreadsheet exports render (src/http/export.ts). A
 * table has typed columns and rows with a style (section header, ordinary line, subtotal, total);
 * amounts stay decimal strings here — the spreadsheet writer turns them into cell numbers only when
 * it writes the file, the CSV writer copies them as they are.
 *
 * The converters read the JSON reports as the API returns them, so an export always shows exactly
 * the figures of the JSON answer. Statements made of sections (balance sheet, income statement,
 * cash-flow statement, their consolidated forms) share one converter that walks the report's fields
 * in order: a section becomes a header row, its lines and its subtotal row; a top-level amount
 * becomes a total row.
 */
import type { Money } from '../money.ts';

export type ColumnKind = 'text' | 'amount' | 'date' | 'integer';
export type RowStyle = 'Header' | 'Normal' | 'Subtotal' | 'Total';

export interface TableColumn {
  header: string;
  kind: ColumnKind;
  /** Character width hint for spreadsheets. */
  width?: number;
  /** Amount columns of mixed currencies: the index of the column naming each row's currency. */
  currencyColumn?: number;
}

export interface TableRow {
  style: RowStyle;
  /** One cell per column: text, a decimal string (amount columns) or null (empty). */
  cells: (string | number | null)[];
  /** Indentation of the row's label (sections of statements). */
  indent?: number;
}

export interface Table {
  /** Sheet name and first line of the title block. */
  title: string;
  /** Currency of every amount column (its minor units format the spreadsheet cells). */
  currency: string;
  columns: TableColumn[];
  rows: TableRow[];
}

type Json = Record<string, unknown>;

const isMoney = (v: unknown): v is Money =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Json).value === 'string' &&
  typeof (v as Json).currency === 'string' &&
  Object.keys(v).length === 2;

const isSection = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && Array.isArray((v as Json).lineItems) && 'title' in v;

/** `totalLiabilitiesAndEquity` → `Total liabilities and equity`. */
export function labelOf(key: string): string {
  const words = key
    .replace(/NCI/g, 'Nci')
    .replace(/OCI/g, 'Oci')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return (words.charAt(0).toUpperCase() + words.slice(1))
    .replace(/\bnci\b/g, 'NCI')
    .replace(/\boci\b/g, 'OCI');
}

const value = (m: unknown): string | null => (isMoney(m) ? m.value : null);

/**
 * A statement made of sections and top-level amounts (balance sheet, income statement, cash flow,
 * and their consolidated forms). Columns: account number, description, amount, and — when the report
 * carries comparative figures — comparative amount and variance.
 */
export function statementTable(title: string, report: Json): Table {
  const sections = Object.values(report).filter(isSection);
  const comparative = sections.some((s) =>
    (s.lineItems as Json[]).some((l) => l.comparativeAmount !== null && l.comparativeAmount !== undefined),
  );
  const columns: TableColumn[] = [
    { header: 'Account number', kind: 'text', width: 16 },
    { header: 'Description', kind: 'text', width: 48 },
    { header: 'Amount', kind: 'amount', width: 18 },
  ];
  if (comparative) {
    columns.push({ header: 'Comparative amount', kind: 'amount', width: 18 });
    columns.push({ header: 'Variance', kind: 'amount', width: 18 });
  }
  const rows: TableRow[] = [];
  const row = (style: RowStyle, cells: (string | null)[], indent = 0) =>
    rows.push({ style, cells: comparative ? cells : cells.slice(0, 3), indent });
  for (const [key, v] of Object.entries(report)) {
    if (isSection(v)) {
      row('Header', [null, String(v.title), null, null, null]);
      for (const l of v.lineItems as Json[]) {
        const style = (l.style as RowStyle) ?? 'Normal';
        row(
          style,
          [
            (l.accountNumber as string | null) ?? null,
            String(l.description),
            value(l.currentAmount ?? l.amount),
            value(l.comparativeAmount),
            value(l.variance),
          ],
          Number(l.indentLevel ?? 0) + 1,
        );
      }
      const subtotal = v.subtotal ?? v.netCashFlow;
      row('Subtotal', [
        null,
        `Total ${String(v.title).toLowerCase()}`,
        value(subtotal),
        value(v.comparativeSubtotal),
        null,
      ]);
    } else if (isMoney(v)) {
      row('Total', [null, labelOf(key), v.value, null, null]);
    }
  }
  rows.push(...rateRows(report, columns.length, 1));
  return { title, currency: String(report.currency), columns, rows };
}

/** A column of a table with one row per line item: where its cells come from. */
interface LineColumn extends TableColumn {
  cell: (line: Json) => string | null;
  /** The cell of the Total row, from the report (empty when absent). */
  total?: (report: Json) => string | null;
}

const textColumn = (header: string, width: number, key: string): LineColumn => ({
  header,
  kind: 'text',
  width,
  cell: (l) => String(l[key]),
});

const amountColumn = (header: string, key: string, totalKey?: string): LineColumn => ({
  header,
  kind: 'amount',
  width: 18,
  cell: (l) => value(l[key]),
  ...(totalKey === undefined ? {} : { total: (r: Json) => value(r[totalKey]) }),
});

/**
 * One Normal row per line item of the report, then the Total row (its label in the second column),
 * then the rates a translated report used.
 */
function lineItemTable(title: string, report: Json, lineColumns: readonly LineColumn[]): Table {
  const columns: TableColumn[] = lineColumns.map(({ header, kind, width }) => ({ header, kind, width }));
  const rows: TableRow[] = (report.lineItems as Json[]).map((l) => ({
    style: 'Normal' as const,
    cells: lineColumns.map((c) => c.cell(l)),
  }));
  rows.push({
    style: 'Total',
    cells: lineColumns.map((c, i) => (i === 1 ? 'Total' : (c.total?.(report) ?? null))),
  });
  rows.push(...rateRows(report, columns.length, 1));
  return { title, currency: String(report.currency), columns, rows };
}

const TRIAL_BALANCE_COLUMNS: readonly LineColumn[] = [
  textColumn('Account number', 16, 'accountNumber'),
  textColumn('Account name', 40, 'accountName'),
  textColumn('Account type', 12, 'accountType'),
  textColumn('Account category', 24, 'accountCategory'),
  amountColumn('Debit', 'debitBalance', 'totalDebits'),
  amountColumn('Credit', 'creditBalance', 'totalCredits'),
];

/** The company trial balance: one row per account, then the totals. */
export function trialBalanceTable(title: string, report: Json): Table {
  return lineItemTable(title, report, TRIAL_BALANCE_COLUMNS);
}

/**
 * A report translated into another currency ends with the rates it used: a header row, then one row
 * per rate, its text in column `at` (none for a report in the functional currency).
 */
function rateRows(report: Json, width: number, at: number): TableRow[] {
  if (!Array.isArray(report.exchangeRates) || report.exchangeRates.length === 0) return [];
  const cells = (text: string) => Array.from({ length: width }, (_, i) => (i === at ? text : null));
  const rows: TableRow[] = [
    {
      style: 'Header',
      cells: cells(`Exchange rates (${String(report.functionalCurrency)} to ${String(report.currency)})`),
    },
  ];
  for (const r of report.exchangeRates as Json[]) {
    const text =
      `${String(r.purpose)}: ${String(r.fromCurrency)}/${String(r.toCurrency)} ${String(r.rateType)} ` +
      `${String(r.effectiveDate)} = ${String(r.effectiveRate)}`;
    rows.push({ style: 'Normal', cells: cells(text), indent: 1 });
  }
  return rows;
}

const CONSOLIDATED_TRIAL_BALANCE_COLUMNS: readonly LineColumn[] = [
  textColumn('Account number', 16, 'accountNumber'),
  textColumn('Account name', 40, 'accountName'),
  textColumn('Account type', 12, 'accountType'),
  textColumn('Line type', 20, 'lineType'),
  amountColumn('Aggregated balance', 'aggregatedBalance'),
  amountColumn('Eliminations', 'eliminationAmount', 'totalEliminations'),
  amountColumn('NCI', 'nciAmount', 'totalNCI'),
  amountColumn('Consolidated balance', 'consolidatedBalance'),
  amountColumn('Debit', 'debitBalance', 'totalDebits'),
  amountColumn('Credit', 'creditBalance', 'totalCredits'),
];

/**
 * The consolidated trial balance: aggregated, eliminated, NCI and consolidated figures per line
 * (always in the group's reporting currency, so without rate rows).
 */
export function consolidatedTrialBalanceTable(title: string, report: Json): Table {
  return lineItemTable(title, report, CONSOLIDATED_TRIAL_BALANCE_COLUMNS);
}

const EQUITY_COLUMNS = [
  ['contributedCapital', 'Contributed capital'],
  ['retainedEarnings', 'Retained earnings'],
  ['treasuryStock', 'Treasury stock'],
  ['accumulatedOCI', 'Accumulated OCI'],
  ['nonControllingInterest', 'Non-controlling interest'],
  ['total', 'Total'],
] as const;

/** The statement of changes in equity: opening balances, movements, closing balances. */
export function equityStatementTable(title: string, report: Json): Table {
  const columns: TableColumn[] = [
    { header: 'Movement', kind: 'text', width: 22 },
    { header: 'Description', kind: 'text', width: 40 },
    ...EQUITY_COLUMNS.map(([, header]) => ({ header, kind: 'amount' as const, width: 18 })),
  ];
  const equityRow = (style: RowStyle, r: Json): TableRow => ({
    style,
    cells: [String(r.movementType), String(r.description), ...EQUITY_COLUMNS.map(([key]) => value(r[key]))],
  });
  const rows: TableRow[] = [
    equityRow('Subtotal', report.openingBalances as Json),
    ...(report.movements as Json[]).map((m) => equityRow('Normal', m)),
    equityRow('Total', report.closingBalances as Json),
  ];
  rows.push(...rateRows(report, columns.length, 1));
  return { title, currency: String(report.currency), columns, rows };
}

/** The columns of the journal-line export (one row per line of an entry). */
export const JOURNAL_LINE_COLUMNS: TableColumn[] = [
  { header: 'Entry number', kind: 'text', width: 12 },
  { header: 'Entry id', kind: 'text', width: 38 },
  { header: 'Company id', kind: 'text', width: 38 },
  { header: 'Transaction date', kind: 'date', width: 12 },
  { header: 'Posting date', kind: 'date', width: 12 },
  { header: 'Status', kind: 'text', width: 14 },
  { header: 'Entry type', kind: 'text', width: 12 },
  { header: 'Reference', kind: 'text', width: 16 },
  { header: 'Description', kind: 'text', width: 40 },
  { header: 'Line', kind: 'integer', width: 6 },
  { header: 'Account number', kind: 'text', width: 14 },
  { header: 'Account name', kind: 'text', width: 30 },
  { header: 'Currency', kind: 'text', width: 8 },
  { header: 'Debit', kind: 'amount', width: 16, currencyColumn: 12 },
  { header: 'Credit', kind: 'amount', width: 16, currencyColumn: 12 },
  { header: 'Exchange rate', kind: 'text', width: 14 },
  { header: 'Functional currency', kind: 'text', width: 10 },
  { header: 'Functional debit', kind: 'amount', width: 16, currencyColumn: 16 },
  { header: 'Functional credit', kind: 'amount', width: 16, currencyColumn: 16 },
  { header: 'Memo', kind: 'text', width: 30 },
];
