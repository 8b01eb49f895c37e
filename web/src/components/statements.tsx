/**
 * Financial statements as tables, shared by company and consolidated reports: sections with their
 * lines and subtotals, comparative columns when the report has them, amounts right-aligned in tabular
 * figures with the report's currency in the header, and the balance check of each statement.
 */
import type { ReactNode } from 'react';
import type { ConsolidatedTrialBalance, EquityRow, Money, TrialBalanceReport } from '../api/types.ts';
import type { DrillTarget } from './contributions.tsx';
import { formatMoney, humanize, isNegative } from '../lib/format.ts';
import { Amount } from './ui.tsx';

function Cell({ money, strong }: { money: Money | null | undefined; strong?: boolean }) {
  return (
    <td className="num">
      <Amount money={money} strong={strong ?? false} />
    </td>
  );
}

function Check(props: { ok: boolean; okText: string; offText: string }) {
  return (
    <span className={`statement-check ${props.ok ? 'ok' : 'off'}`} data-testid="statement-check">
      {props.ok ? `✓ ${props.okText}` : `✗ ${props.offText}`}
    </span>
  );
}

export function StatementHeader(props: {
  title: string;
  subtitle: ReactNode;
  check?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="statement-title">
      <div>
        <h2>{props.title}</h2>
        <div className="muted">{props.subtitle}</div>
      </div>
      <div className="statement-tools">
        {props.check}
        {props.actions}
      </div>
    </div>
  );
}

interface Columns {
  comparative: boolean;
}

/** The shapes company and consolidated statements share (consolidated ones have no comparatives). */
interface ReportLine {
  accountNumber: string | null;
  description: string;
  currentAmount: Money;
  comparativeAmount?: Money | null;
  variance?: Money | null;
  variancePercentage?: string | null;
  style: 'Normal' | 'Subtotal' | 'Total' | 'Header';
  indentLevel: number;
}
interface ReportSection {
  title: string;
  lineItems: ReportLine[];
  subtotal: Money;
  comparativeSubtotal?: Money | null;
}
interface AnyBalanceSheet {
  currency: string;
  asOfDate: string;
  comparativeDate?: string | null;
  currentAssets: ReportSection;
  nonCurrentAssets: ReportSection;
  totalAssets: Money;
  currentLiabilities: ReportSection;
  nonCurrentLiabilities: ReportSection;
  totalLiabilities: Money;
  equity: ReportSection;
  nonControllingInterest?: Money;
  totalEquity: Money;
  totalLiabilitiesAndEquity: Money;
  isBalanced: boolean;
}
interface AnyIncomeStatement {
  currency: string;
  periodStartDate: string;
  periodEndDate: string;
  comparativeStartDate?: string | null;
  comparativeEndDate?: string | null;
  revenue: ReportSection;
  costOfSales: ReportSection;
  grossProfit: Money;
  operatingExpenses: ReportSection;
  operatingIncome: Money;
  otherIncomeExpense: ReportSection;
  incomeBeforeTax: Money;
  taxExpense: Money;
  netIncome: Money;
  netIncomeAttributableToParent?: Money;
  netIncomeAttributableToNCI?: Money;
}
interface CashFlowSection {
  title: string;
  lineItems: Array<{ description: string; amount: Money; style: ReportLine['style']; indentLevel: number }>;
  netCashFlow: Money;
}

function lineClass(line: ReportLine): string {
  const style = line.style === 'Normal' ? '' : line.style.toLowerCase();
  return style;
}

/** Opens the contributions of a consolidated line (consolidated statements only). */
type Drill = ((target: DrillTarget) => void) | undefined;

/**
 * A line's number and name; a button that opens where the line comes from when `drill` is given.
 * `showNumber` false: a line the run adds (translation adjustment, NCI …), shown by its name alone.
 */
function LineName(props: {
  accountNumber: string | null;
  name: string;
  drill: Drill;
  companyId?: string | null;
  showNumber?: boolean;
}) {
  const { accountNumber, name, drill } = props;
  const number = props.showNumber === false ? null : accountNumber;
  const text = (
    <>
      {number ? <span className="acct-number">{number}</span> : null} {name}
    </>
  );
  if (!drill || !accountNumber) return text;
  return (
    <button
      type="button"
      className="link-button"
      aria-haspopup="dialog"
      onClick={() =>
        drill({
          accountNumber,
          label: number ? `${number} ${name}` : name,
          companyId: props.companyId ?? null,
        })
      }
    >
      {text}
    </button>
  );
}

function SectionRows({
  section,
  cols,
  totalLabel,
  drill,
}: {
  section: ReportSection;
  cols: Columns;
  totalLabel?: string;
  drill?: Drill;
}) {
  const span = cols.comparative ? 5 : 2;
  return (
    <>
      <tr className="section">
        <td colSpan={span}>{section.title}</td>
      </tr>
      {section.lineItems.length === 0 ? (
        <tr>
          <td className="indent-1 muted" colSpan={span}>
            No balances
          </td>
        </tr>
      ) : (
        section.lineItems.map((l, i) => (
          <tr key={`${l.accountNumber ?? l.description}-${i}`} className={lineClass(l)}>
            <td className={`indent-${Math.min(3, l.indentLevel)}`}>
              <LineName accountNumber={l.accountNumber} name={l.description} drill={drill} />
            </td>
            <Cell money={l.currentAmount} />
            {cols.comparative ? (
              <>
                <Cell money={l.comparativeAmount} />
                <Cell money={l.variance} />
                <td className="num">{l.variancePercentage !== null ? `${l.variancePercentage} %` : ''}</td>
              </>
            ) : null}
          </tr>
        ))
      )}
      <tr className="subtotal">
        <td>{totalLabel ?? `Total ${section.title.toLowerCase()}`}</td>
        <Cell money={section.subtotal} />
        {cols.comparative ? (
          <>
            <Cell money={section.comparativeSubtotal} />
            <td colSpan={2} />
          </>
        ) : null}
      </tr>
    </>
  );
}

function TotalRow(props: {
  label: string;
  money: Money | null | undefined;
  cols: Columns;
  kind?: 'total' | 'subtotal';
  testId?: string;
}) {
  return (
    <tr className={props.kind ?? 'total'} data-testid={props.testId}>
      <td>{props.label}</td>
      <td className="num">
        <Amount money={props.money} strong />
      </td>
      {props.cols.comparative ? <td colSpan={3} /> : null}
    </tr>
  );
}

function StatementTable(props: {
  currency: string;
  cols: Columns;
  current?: string;
  comparative?: string | null;
  children: ReactNode;
  label: string;
}) {
  return (
    <table className="table statement" aria-label={props.label}>
      <thead>
        <tr>
          <th scope="col">Account</th>
          <th scope="col" className="num">
            {props.current ?? 'Amount'} ({props.currency})
          </th>
          {props.cols.comparative ? (
            <>
              <th scope="col" className="num">
                {props.comparative ?? 'Comparative'}
              </th>
              <th scope="col" className="num">
                Variance
              </th>
              <th scope="col" className="num">
                %
              </th>
            </>
          ) : null}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}

export function BalanceSheetView({ report, drill }: { report: AnyBalanceSheet; drill?: Drill }) {
  const comparativeDate = report.comparativeDate ?? null;
  const cols = { comparative: !!comparativeDate };
  const nci = report.nonControllingInterest ?? null;
  return (
    <StatementTable
      label="Balance sheet"
      currency={report.currency}
      cols={cols}
      current={report.asOfDate}
      comparative={comparativeDate}
    >
      <SectionRows section={report.currentAssets} cols={cols} drill={drill} />
      <SectionRows section={report.nonCurrentAssets} cols={cols} drill={drill} />
      <TotalRow label="Total assets" money={report.totalAssets} cols={cols} testId="total-assets" />
      <SectionRows section={report.currentLiabilities} cols={cols} drill={drill} />
      <SectionRows section={report.nonCurrentLiabilities} cols={cols} drill={drill} />
      <TotalRow label="Total liabilities" money={report.totalLiabilities} cols={cols} kind="subtotal" />
      <SectionRows
        section={report.equity}
        cols={cols}
        drill={drill}
        totalLabel={nci ? 'Equity attributable to owners of the parent' : 'Total equity'}
      />
      {nci ? (
        <>
          <tr data-testid="nci-row">
            <td>Non-controlling interest</td>
            <Cell money={nci} />
          </tr>
          <TotalRow label="Total equity" money={report.totalEquity} cols={cols} kind="subtotal" />
        </>
      ) : null}
      <TotalRow
        label="Total liabilities and equity"
        money={report.totalLiabilitiesAndEquity}
        cols={cols}
        testId="total-le"
      />
    </StatementTable>
  );
}

export function balanceSheetCheck(report: AnyBalanceSheet) {
  return <Check ok={report.isBalanced} okText="Balanced" offText="Not balanced" />;
}

export function IncomeStatementView({ report, drill }: { report: AnyIncomeStatement; drill?: Drill }) {
  const cols = { comparative: !!report.comparativeStartDate };
  const comparative = report.comparativeStartDate
    ? `${report.comparativeStartDate} – ${report.comparativeEndDate}`
    : null;
  return (
    <StatementTable
      label="Income statement"
      currency={report.currency}
      cols={cols}
      current={`${report.periodStartDate} – ${report.periodEndDate}`}
      comparative={comparative}
    >
      <SectionRows section={report.revenue} cols={cols} drill={drill} />
      <SectionRows section={report.costOfSales} cols={cols} drill={drill} />
      <TotalRow label="Gross profit" money={report.grossProfit} cols={cols} kind="subtotal" />
      <SectionRows section={report.operatingExpenses} cols={cols} drill={drill} />
      <TotalRow label="Operating income" money={report.operatingIncome} cols={cols} kind="subtotal" />
      <SectionRows
        section={report.otherIncomeExpense}
        cols={cols}
        totalLabel="Net other income"
        drill={drill}
      />
      <TotalRow label="Income before tax" money={report.incomeBeforeTax} cols={cols} kind="subtotal" />
      <tr>
        <td>Income tax expense</td>
        <Cell money={report.taxExpense} />
        {cols.comparative ? <td colSpan={3} /> : null}
      </tr>
      <TotalRow label="Net income" money={report.netIncome} cols={cols} testId="net-income" />
      {report.netIncomeAttributableToParent ? (
        <>
          <tr>
            <td className="indent-1">Attributable to owners of the parent</td>
            <Cell money={report.netIncomeAttributableToParent} />
          </tr>
          <tr>
            <td className="indent-1">Attributable to non-controlling interest</td>
            <Cell money={report.netIncomeAttributableToNCI} />
          </tr>
        </>
      ) : null}
    </StatementTable>
  );
}

interface AnyCashFlow {
  currency: string;
  periodStartDate: string;
  periodEndDate: string;
  beginningCash: Money;
  operatingActivities: CashFlowSection;
  investingActivities: CashFlowSection;
  financingActivities: CashFlowSection;
  exchangeRateEffect: Money;
  netChangeInCash: Money;
  endingCash: Money;
  isReconciled: boolean;
}

export function CashFlowView({ report }: { report: AnyCashFlow }) {
  const cols = { comparative: false };
  const section = (s: CashFlowSection) => (
    <>
      <tr className="section">
        <td colSpan={2}>{s.title}</td>
      </tr>
      {s.lineItems.map((l, i) => (
        <tr key={`${l.description}-${i}`} className={l.style === 'Normal' ? '' : l.style.toLowerCase()}>
          <td className={`indent-${Math.min(3, l.indentLevel + 1)}`}>{l.description}</td>
          {l.style === 'Header' ? <td /> : <Cell money={l.amount} strong={l.style === 'Total'} />}
        </tr>
      ))}
    </>
  );
  return (
    <StatementTable
      label="Cash-flow statement"
      currency={report.currency}
      cols={cols}
      current={`${report.periodStartDate} – ${report.periodEndDate}`}
    >
      <tr>
        <td>Cash at the beginning of the period</td>
        <Cell money={report.beginningCash} />
      </tr>
      {section(report.operatingActivities)}
      {section(report.investingActivities)}
      {section(report.financingActivities)}
      <tr>
        <td>Effect of exchange-rate changes on cash</td>
        <Cell money={report.exchangeRateEffect} />
      </tr>
      <TotalRow label="Net change in cash" money={report.netChangeInCash} cols={cols} kind="subtotal" />
      <TotalRow label="Cash at the end of the period" money={report.endingCash} cols={cols} />
    </StatementTable>
  );
}

const EQUITY_COLUMNS: Array<[keyof EquityRow, string]> = [
  ['contributedCapital', 'Contributed capital'],
  ['retainedEarnings', 'Retained earnings'],
  ['treasuryStock', 'Treasury stock'],
  ['accumulatedOCI', 'Accumulated OCI'],
  ['nonControllingInterest', 'Non-controlling interest'],
  ['total', 'Total'],
];

export function EquityStatementView({
  report,
}: {
  report: {
    currency: string;
    openingBalances: EquityRow;
    movements: EquityRow[];
    closingBalances: EquityRow;
  };
}) {
  const row = (r: EquityRow, className?: string) => (
    <tr key={r.movementType} className={className}>
      <td>{r.description}</td>
      {EQUITY_COLUMNS.map(([key]) => (
        <Cell key={key} money={r[key] as Money} strong={className === 'total'} />
      ))}
    </tr>
  );
  return (
    <table className="table statement" aria-label="Statement of changes in equity">
      <thead>
        <tr>
          <th scope="col">{report.currency}</th>
          {EQUITY_COLUMNS.map(([key, label]) => (
            <th key={key} scope="col" className="num">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {row(report.openingBalances, 'subtotal')}
        {report.movements.map((m) => row(m))}
        {row(report.closingBalances, 'total')}
      </tbody>
    </table>
  );
}

export function TrialBalanceView({ report }: { report: TrialBalanceReport }) {
  return (
    <table className="table statement" aria-label="Trial balance">
      <thead>
        <tr>
          <th scope="col">Account</th>
          <th scope="col">Type</th>
          <th scope="col" className="num">
            Debit ({report.currency})
          </th>
          <th scope="col" className="num">
            Credit ({report.currency})
          </th>
        </tr>
      </thead>
      <tbody>
        {report.lineItems.map((l) => (
          <tr key={l.accountId}>
            <td>
              <span className="acct-number">{l.accountNumber}</span> {l.accountName}
            </td>
            <td>{humanize(l.accountCategory)}</td>
            <Cell money={isZeroMoney(l.debitBalance) ? null : l.debitBalance} />
            <Cell money={isZeroMoney(l.creditBalance) ? null : l.creditBalance} />
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr className="total">
          <td colSpan={2}>Total</td>
          <Cell money={report.totalDebits} strong />
          <Cell money={report.totalCredits} strong />
        </tr>
      </tfoot>
    </table>
  );
}

function isZeroMoney(m: Money): boolean {
  return !/[1-9]/.test(m.value);
}

export function ConsolidatedTrialBalanceView({ tb, drill }: { tb: ConsolidatedTrialBalance; drill?: Drill }) {
  return (
    <table className="table statement" aria-label="Consolidated trial balance">
      <thead>
        <tr>
          <th scope="col">Line</th>
          <th scope="col">Type</th>
          <th scope="col" className="num">
            Aggregated
          </th>
          <th scope="col" className="num">
            Eliminations
          </th>
          <th scope="col" className="num">
            NCI
          </th>
          <th scope="col" className="num">
            Consolidated ({tb.currency})
          </th>
        </tr>
      </thead>
      <tbody>
        {tb.lineItems.map((l) => (
          <tr
            key={`${l.accountNumber}-${l.companyId ?? ''}`}
            className={l.lineType === 'Account' ? '' : 'synthetic'}
          >
            <td>
              <LineName
                accountNumber={l.accountNumber}
                name={l.accountName}
                drill={drill}
                companyId={l.companyId}
                showNumber={l.lineType === 'Account'}
              />
            </td>
            <td>{l.accountType}</td>
            <Cell money={l.aggregatedBalance} />
            <Cell money={isZeroMoney(l.eliminationAmount) ? null : l.eliminationAmount} />
            <Cell money={isZeroMoney(l.nciAmount) ? null : l.nciAmount} />
            <Cell money={l.consolidatedBalance} strong />
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <td colSpan={5}>Total debits / credits</td>
          <td className="num">
            {formatMoney(tb.totalDebits)} / {formatMoney(tb.totalCredits)}
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

/**
 * Composition of a balance sheet as two stacked bars (what the group owns; how it is financed). The
 * widths are drawing geometry only: every figure shown is the report's own decimal string.
 */
export function BalanceSheetChart({ report }: { report: AnyBalanceSheet }) {
  const nci = report.nonControllingInterest ?? null;
  const parentEquity = nci ? report.equity.subtotal : report.totalEquity;
  const bars: Array<{ label: string; parts: Array<{ label: string; money: Money; color: string }> }> = [
    {
      label: 'Assets',
      parts: [
        { label: 'Current assets', money: report.currentAssets.subtotal, color: '#1d4fd8' },
        { label: 'Non-current assets', money: report.nonCurrentAssets.subtotal, color: '#7fa3f2' },
      ],
    },
    {
      label: 'Liabilities and equity',
      parts: [
        { label: 'Current liabilities', money: report.currentLiabilities.subtotal, color: '#b45309' },
        { label: 'Non-current liabilities', money: report.nonCurrentLiabilities.subtotal, color: '#f0b46b' },
        { label: nci ? 'Equity of the parent' : 'Equity', money: parentEquity, color: '#137a3a' },
        ...(nci ? [{ label: 'Non-controlling interest', money: nci, color: '#7cc493' }] : []),
      ],
    },
  ];
  const summary = bars
    .map((b) => `${b.label}: ${b.parts.map((p) => `${p.label} ${formatMoney(p.money, true)}`).join(', ')}`)
    .join('. ');
  return (
    <figure className="bar-chart-figure">
      <StackedBars
        label={summary}
        bars={bars.map((b) => ({
          label: b.label,
          parts: b.parts.map((p) => ({ key: p.label, value: p.money.value, color: p.color })),
        }))}
      />
      <figcaption className="chart-legend">
        {bars.flatMap((b) =>
          b.parts.map((p) => (
            <span key={`${b.label}-${p.label}`} data-swatch={p.color} className="legend-item">
              <svg width="10" height="10" aria-hidden="true">
                <rect width="10" height="10" rx="2" fill={p.color} />
              </svg>{' '}
              {p.label} <strong className="tabular">{formatMoney(p.money)}</strong>
            </span>
          )),
        )}
      </figcaption>
    </figure>
  );
}

/**
 * Horizontal stacked bars, one per row, each part as wide as its share of the longest bar (negative
 * parts are not drawn). The widths are drawing geometry only: the figures are shown beside the chart
 * from their exact decimal strings, and `label` says them to assistive technology.
 */
export function StackedBars(props: {
  label: string;
  bars: Array<{ label: string; parts: Array<{ key: string; value: string; color: string }> }>;
}) {
  const size = (v: string) => (isNegative(v) ? 0 : Number(v));
  const max = Math.max(1, ...props.bars.map((b) => b.parts.reduce((s, p) => s + size(p.value), 0)));
  const width = 560;
  const labelWidth = 150;
  const row = 44;
  return (
    <svg
      className="bar-chart"
      viewBox={`0 0 ${width + labelWidth} ${props.bars.length * row + 8}`}
      role="img"
      aria-label={props.label}
    >
      {props.bars.map((bar, i) => {
        let x = labelWidth;
        return (
          <g key={bar.label} transform={`translate(0 ${i * row + 6})`}>
            <text x={0} y={21}>
              {bar.label}
            </text>
            {bar.parts.map((p) => {
              const w = (size(p.value) / max) * width;
              const rect = <rect key={p.key} x={x} y={4} width={w} height={27} fill={p.color} rx={2} />;
              x += w;
              return rect;
            })}
          </g>
        );
      })}
    </svg>
  );
}
