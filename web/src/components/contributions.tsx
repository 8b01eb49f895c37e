/**
 * Where a consolidated line comes from (the run's recorded contributions): per company its translated
 * items — functional balance, translation basis and rates, translated amount — its weight and what it
 * adds to the line; the elimination entries and top-side adjustments on the line; the non-controlling
 * interest moved; and anything no company, entry or adjustment accounts for. Also the consolidated
 * balance sheet by company, built from the contributions of its asset and liability lines.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client.ts';
import type { ConsolidationRun, LineContributions, Money } from '../api/types.ts';
import {
  balanceSheetAccounts,
  type Composition,
  type CompositionRow,
  composition,
} from '../lib/composition.ts';
import { formatAmount, formatMoney, humanize, inMinorUnits, isZero } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { StackedBars } from './statements.tsx';
import { Alert, Amount, Dialog, Loading, Num } from './ui.tsx';

export type TrialBalanceView = 'closing' | 'opening';

/** The line a user asked about: its account number, how it is named on screen, and its company for per-investee lines. */
export interface DrillTarget {
  accountNumber: string;
  label: string;
  companyId?: string | null;
}

function contributionsQuery(orgId: string, runId: string, view: TrialBalanceView, accountNumber: string) {
  return {
    queryKey: ['org', orgId, 'contributions', runId, view, accountNumber],
    queryFn: () =>
      call(
        api.GET('/api/v1/consolidation/runs/{id}/trial-balance/lines/{accountNumber}/contributions', {
          params: { path: { id: runId, accountNumber }, query: { organizationId: orgId, view } },
        }),
      ),
    // A completed run's results never change.
    staleTime: Infinity,
  };
}

export function ContributionsDialog(props: {
  run: ConsolidationRun;
  target: DrillTarget | null;
  view: TrialBalanceView;
  onClose: () => void;
}) {
  const { target } = props;
  return (
    <Dialog
      open={!!target}
      wide
      title={target ? `Contributions to ${target.label}` : 'Contributions'}
      onClose={props.onClose}
    >
      {target ? <ContributionsBody run={props.run} target={target} view={props.view} /> : null}
    </Dialog>
  );
}

function ContributionsBody({
  run,
  target,
  view,
}: {
  run: ConsolidationRun;
  target: DrillTarget;
  view: TrialBalanceView;
}) {
  const { orgId } = useOrg();
  const report = useQuery(contributionsQuery(orgId, run.id, view, target.accountNumber));
  if (report.isPending) return <Loading label="Loading the contributions…" />;
  if (report.error) return <Alert kind="error">{report.error.message}</Alert>;
  // One line per account number, or one per investee for the equity-method lines.
  const lines = report.data.lines.filter((l) => !target.companyId || l.companyId === target.companyId);
  const names = new Map(run.members.map((m) => [m.companyId, m.companyName]));
  return (
    <>
      <p className="muted">
        {view === 'opening' ? 'Opening view' : 'Closing view'} as of{' '}
        {view === 'opening' ? `the day before ${run.yearStartDate}` : run.asOfDate}, in {report.data.currency}
        . Balances are signed: debits positive, credits negative.
      </p>
      {lines.map((l) => (
        <LineParts
          key={l.lineId}
          line={l}
          title={lines.length > 1 && l.companyId ? `Held in ${names.get(l.companyId) ?? l.companyId}` : null}
          companyName={(id) => (id ? (names.get(id) ?? id.slice(0, 8)) : 'Group')}
        />
      ))}
    </>
  );
}

function LineParts(props: {
  line: LineContributions;
  title: string | null;
  companyName: (id: string | null) => string;
}) {
  const { line: l } = props;
  const u = l.unattributed;
  const unattributed = [u.aggregated, u.elimination, u.adjustment].filter((m) => !isZero(m.value));
  return (
    <section className="contribution-line">
      {props.title ? <h3 className="section-title">{props.title}</h3> : null}
      <table className="table table-compact parts-table" aria-label="How the line adds up">
        <tbody>
          <PartRow label="Companies (aggregated)" money={l.aggregatedBalance} />
          <PartRow label="Eliminations" money={l.eliminationAmount} />
          <PartRow label="Top-side adjustments" money={l.adjustmentAmount} />
          <PartRow label="Non-controlling interest" money={l.nciAmount} />
          {unattributed.length > 0 ? (
            <tr>
              <th scope="row">Unattributed</th>
              <td className="num">
                {unattributed.map((m, i) => (
                  <div key={i}>
                    <Amount money={m} />
                  </div>
                ))}
              </td>
            </tr>
          ) : null}
          <tr className="total">
            <th scope="row">Consolidated</th>
            <td className="num">
              <Amount money={l.consolidatedBalance} strong />
            </td>
          </tr>
        </tbody>
      </table>
      <p className={l.addsUp ? 'ok-text' : 'error-text'}>
        {l.addsUp ? '✓ The parts add up to the consolidated balance.' : '✗ The parts do not add up.'}
      </p>
      <h3 className="section-title">Companies</h3>
      {l.companies.length === 0 ? (
        <p className="muted">No company balance lands on this line.</p>
      ) : (
        <div className="table-scroll">
          <table className="table table-compact" aria-label="Company contributions">
            <thead>
              <tr>
                <th scope="col">Company</th>
                <th scope="col">From</th>
                <th scope="col" className="num">
                  Functional balance
                </th>
                <th scope="col">Basis</th>
                <th scope="col" className="num">
                  Rate
                </th>
                <th scope="col" className="num">
                  Translated
                </th>
                <th scope="col" className="num">
                  Weight
                </th>
                <th scope="col" className="num">
                  Contribution
                </th>
              </tr>
            </thead>
            <tbody>
              {l.companies.flatMap((c) =>
                c.items.map((item, i) => (
                  <tr key={`${c.companyId}-${i}`} data-company={c.companyName}>
                    {i === 0 ? (
                      <th scope="row" rowSpan={c.items.length}>
                        {c.companyName}
                        <div className="muted">
                          {humanize(c.consolidationMethod)} · {c.functionalCurrency}
                        </div>
                      </th>
                    ) : null}
                    <td>
                      {item.source === 'Account' ? '' : `${humanize(item.source)} · `}
                      <span className="acct-number">{item.accountNumber}</span>
                    </td>
                    <td className="num">
                      {item.functionalBalance ? (
                        <Amount money={inMinorUnits(item.functionalBalance)} currency />
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>{item.basis && item.basis !== 'None' ? humanize(item.basis) : '—'}</td>
                    <td className="num">
                      {item.rates.length === 0
                        ? '—'
                        : item.rates.map((r) => (
                            <div key={r.appliedFor} title={`applied for ${r.appliedFor}`}>
                              {r.rate}
                            </div>
                          ))}
                      {item.ratesOmitted > 0 ? (
                        <div className="muted">and {item.ratesOmitted} more</div>
                      ) : null}
                    </td>
                    <td className="num">
                      <Amount money={item.translatedAmount} />
                    </td>
                    {i === 0 ? (
                      <>
                        <td className="num" rowSpan={c.items.length}>
                          {c.weight}
                        </td>
                        <td className="num" rowSpan={c.items.length}>
                          <Amount money={c.amount} strong />
                        </td>
                      </>
                    ) : null}
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}
      <h3 className="section-title">Eliminations and adjustments</h3>
      {l.eliminations.length === 0 && l.adjustments.length === 0 ? (
        <p className="muted">No elimination entry or top-side adjustment touches this line.</p>
      ) : (
        <table className="table table-compact" aria-label="Eliminations and adjustments">
          <thead>
            <tr>
              <th scope="col">Entry</th>
              <th scope="col">Company</th>
              <th scope="col" className="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {l.eliminations.map((e, i) => (
              <tr key={`e-${i}`}>
                <td>
                  {e.source === 'Acquisition' ? 'Acquisition accounting' : `Rule: ${e.ruleName ?? '—'}`}
                </td>
                <td>{props.companyName(e.companyId)}</td>
                <td className="num">
                  <Amount money={e.amount} />
                </td>
              </tr>
            ))}
            {l.adjustments.map((a) => (
              <tr key={a.adjustmentId}>
                <td>Top-side adjustment {a.adjustmentId.slice(0, 8)}</td>
                <td>{props.companyName(a.companyId)}</td>
                <td className="num">
                  <Amount money={a.amount} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function PartRow({ label, money }: { label: string; money: Money }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td className="num">
        {isZero(money.value) ? <span className="muted">—</span> : <Amount money={money} />}
      </td>
    </tr>
  );
}

/** Beyond this many asset and liability lines, the composition is computed on request only. */
const AUTOMATIC_LINES = 60;
/** Contributions requests in flight at once. */
const PARALLEL = 4;

async function inPool<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return results;
}

/** Company colours, apart from the statement chart's (blue assets, orange liabilities, green equity). */
const COMPANY_COLORS = [
  '#0e7490',
  '#7c3aed',
  '#be123c',
  '#4d7c0f',
  '#a16207',
  '#1e3a8a',
  '#9d174d',
  '#115e59',
];

/**
 * The consolidated balance sheet by company: a bar for assets, liabilities and net assets, each split
 * by the companies' contributions, and the table of every figure (eliminations, adjustments and the
 * non-controlling interest included) adding up to the consolidated totals.
 */
export function CompositionByCompany({ run, nci }: { run: ConsolidationRun; nci: Money | null }) {
  const { orgId } = useOrg();
  const queryClient = useQueryClient();
  const tb = useQuery({
    queryKey: ['org', orgId, 'run-tb', run.id, 'closing'],
    queryFn: () =>
      call(
        api.GET('/api/v1/consolidation/runs/{id}/trial-balance', {
          params: { path: { id: run.id }, query: { organizationId: orgId, view: 'closing' } },
        }),
      ),
    staleTime: Infinity,
  });
  const accounts = tb.data ? balanceSheetAccounts(tb.data) : [];
  const types = new Map(tb.data?.lineItems.map((l) => [l.accountNumber, l.accountType]) ?? []);
  const order = run.members.map((m) => m.companyId);
  const parts = useQuery({
    queryKey: ['org', orgId, 'composition', run.id],
    queryFn: async () => {
      // Through the cache: a line opened afterwards (or before) is not fetched twice.
      const answers = await inPool(accounts, (n) =>
        queryClient.fetchQuery(contributionsQuery(orgId, run.id, 'closing', n)),
      );
      return composition(
        answers.flatMap((a) =>
          a.lines.map((line) => ({ accountType: types.get(a.accountNumber) ?? '', line })),
        ),
        tb.data!.currency,
        order,
      );
    },
    enabled: !!tb.data && accounts.length <= AUTOMATIC_LINES,
    staleTime: Infinity,
  });
  return (
    <section className="composition" aria-labelledby="composition-title">
      <h3 className="section-title" id="composition-title">
        Composition by company
      </h3>
      {tb.error || parts.error ? (
        <Alert kind="error">{(tb.error ?? parts.error)!.message}</Alert>
      ) : parts.data ? (
        <CompositionChart data={parts.data} nci={nci} />
      ) : tb.data && accounts.length > AUTOMATIC_LINES && parts.fetchStatus === 'idle' ? (
        <button type="button" className="btn btn-sm" onClick={() => void parts.refetch()}>
          Show the composition by company ({accounts.length} lines to trace)
        </button>
      ) : (
        <Loading label="Tracing the balance-sheet lines…" />
      )}
    </section>
  );
}

function CompositionChart({ data, nci }: { data: Composition; nci: Money | null }) {
  const color = new Map(data.companies.map((c, i) => [c.key, COMPANY_COLORS[i % COMPANY_COLORS.length]!]));
  const measures: Array<{ key: 'assets' | 'liabilities' | 'netAssets'; label: string }> = [
    { key: 'assets', label: 'Assets' },
    { key: 'liabilities', label: 'Liabilities' },
    { key: 'netAssets', label: 'Net assets' },
  ];
  const summary = measures
    .map(
      (m) =>
        `${m.label}: ${data.companies.map((c) => `${c.label} ${formatAmount(c[m.key])}`).join(', ')}; consolidated ${formatAmount(data.total[m.key])} ${data.currency}`,
    )
    .join('. ');
  const figures = (r: CompositionRow) =>
    measures.map((m) => (
      <td key={m.key} className="num">
        <Num value={r[m.key]} />
      </td>
    ));
  return (
    <figure className="bar-chart-figure">
      <StackedBars
        label={`Balance sheet by company. ${summary}`}
        bars={measures.map((m) => ({
          label: m.label,
          parts: data.companies.map((c) => ({ key: c.key, value: c[m.key], color: color.get(c.key)! })),
        }))}
      />
      <figcaption>
        <table className="table table-compact composition-table" aria-label="Balance sheet by company">
          <thead>
            <tr>
              <th scope="col">{data.currency}</th>
              <th scope="col" className="num">
                Assets
              </th>
              <th scope="col" className="num">
                Liabilities
              </th>
              <th scope="col" className="num">
                Net assets
              </th>
            </tr>
          </thead>
          <tbody>
            {data.companies.map((c) => (
              <tr key={c.key}>
                <th scope="row">
                  <svg width="10" height="10" aria-hidden="true">
                    <rect width="10" height="10" rx="2" fill={color.get(c.key)} />
                  </svg>{' '}
                  {c.label}
                </th>
                {figures(c)}
              </tr>
            ))}
            {data.group.map((g) => (
              <tr key={g.key}>
                <th scope="row">{g.label}</th>
                {figures(g)}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr className="total">
              <th scope="row">{data.total.label}</th>
              {measures.map((m) => (
                <td key={m.key} className="num">
                  <strong>{formatAmount(data.total[m.key])}</strong>
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
        <p className="muted">
          Net assets are the group&apos;s equity
          {nci ? (
            <>
              , of which <span data-testid="composition-nci">{formatMoney(nci, true)}</span> belongs to
              non-controlling interests
            </>
          ) : null}
          .
        </p>
      </figcaption>
    </figure>
  );
}
