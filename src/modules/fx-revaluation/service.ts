/**
 * Foreign-currency revaluation of a company's monetary balances (the accounting is
 * src/domain/fx-revaluation.ts): the open balances per currency as of a date, and revaluation runs,
 * which book the differences through the journal (the entries the service writes itself, as the
 * year-end close does) together with a record of the run, in one transaction.
 *
 * Concurrency: a run locks its company row (FOR NO KEY UPDATE) before it reads the balances. Every
 * journal create and post share-locks the same row, so an entry being posted into the company either
 * committed before the run read the balances (and is revalued by it) or waits until the run commits
 * (and is revalued by the next run): no line is counted twice, none is lost. Two runs of one company
 * are serialised the same way.
 */
import { desc, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, type Queryable, queryRows, type Tx } from '../../db/client.ts';
import { inOrg, requireRow } from '../../db/rows.ts';
import { fxRevaluations } from '../../db/schema/index.ts';
import { addDays, type IsoDate, todayIn } from '../../domain/dates.ts';
import { DomainError } from '../../domain/errors.ts';
import {
  type ClosingRate,
  type FxDifferenceKind,
  type FxEntryLine,
  type RevaluedBalance,
  revaluationEntryLines,
  revalueBalances,
} from '../../domain/fx-revaluation.ts';
import { UNPOSTED_STATUSES } from '../../domain/journal/workflow.ts';
import { type Decimal, formatRate, type Money, money, ZERO } from '../../domain/money.ts';
import { CLOSING_RATE_TYPES, type RateType } from '../../domain/rates.ts';
import type { Access } from '../../access/access.ts';
import type { PageParams } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { auditWrite } from '../audit/service.ts';
import { type CompanyRow, companyInactive, findCompany } from '../companies/lookup.ts';
import { loadRateBook, lockRatesForUse } from '../exchange-rates/service.ts';
import { enterCompany } from '../fiscal/service.ts';
import { insertSystemEntry, type SystemLine } from '../journal/booked.ts';
import { lockPeriod, resolveFiscalPeriod } from '../journal/checks.ts';
import { type AccountCurrencyFigure, monetaryCurrencyBalances } from '../ledger/currency-figures.ts';
import { organizationSettings } from '../organizations/service.ts';
import { errors } from '../../domain/error-catalogue.ts';

/** The origin mark of the entries of a revaluation run. */
export const FX_REVALUATION_REF_PREFIX = 'fx-revaluation:';
const refOf = (id: string) => `${FX_REVALUATION_REF_PREFIX}${id}`;

export interface CompanyPath {
  organizationId: string;
  companyId: string;
}

export interface RateUsed {
  currency: string;
  rate: string;
  derivation: string;
  exchangeRateIds: string[];
}

export interface BalanceLine {
  accountId: string;
  accountNumber: string;
  accountName: string;
  accountType: string;
  currency: string;
  foreignAmount: Money;
  carryingAmount: Money;
  closingRate: string | null;
  exchangeRateIds: string[];
  revaluedAmount: Money | null;
  difference: Money | null;
  differenceKind: FxDifferenceKind | null;
}

export interface ForeignCurrencyBalances {
  companyId: string;
  asOfDate: IsoDate;
  functionalCurrency: string;
  rateTypes: RateType[];
  balances: BalanceLine[];
  rates: RateUsed[];
  /** Currencies with an open balance but no rate of the acceptable types on or before the date. */
  missingRates: string[];
}

export interface FxRevaluationRecord {
  id: string | null;
  organizationId: string;
  companyId: string;
  asOfDate: IsoDate;
  rateType: RateType | null;
  rateTypes: RateType[];
  autoReverse: boolean;
  dryRun: boolean;
  entryId: string | null;
  entryStatus: string | null;
  reversalEntryId: string | null;
  reversalDate: IsoDate | null;
  functionalCurrency: string;
  lines: BalanceLine[];
  rates: RateUsed[];
  totalUnrealized: Money;
  totalRealized: Money;
  createdBy: string;
  createdAt: string | null;
}

export interface RunInput {
  asOfDate: IsoDate;
  rateType?: RateType | undefined;
  dryRun?: boolean | undefined;
  autoReverse?: boolean | undefined;
}

const typesOf = (rateType: RateType | null | undefined): RateType[] =>
  rateType ? [rateType] : [...CLOSING_RATE_TYPES];

// ---------------------------------------------------------------------------------------------------
// Measuring

interface Measured {
  figures: AccountCurrencyFigure[];
  revalued: RevaluedBalance[];
  rates: Map<string, RateUsed & { closing: ClosingRate }>;
  missing: string[];
}

/** Reads the balances as of the date and restates them at the closing rates (one rate query). */
async function measure(
  db: Queryable,
  company: CompanyRow,
  asOfDate: IsoDate,
  types: RateType[],
): Promise<Measured> {
  const figures = await monetaryCurrencyBalances(db, company, asOfDate);
  const fc = company.functionalCurrency;
  const currencies = [...new Set(figures.map((f) => f.currency))];
  const rates = new Map<string, RateUsed & { closing: ClosingRate }>();
  if (currencies.length > 0) {
    const book = await loadRateBook(db, company.organizationId, [fc, ...currencies], asOfDate);
    for (const currency of currencies) {
      const r = book.resolve({
        from: currency,
        to: fc,
        types,
        condition: { kind: 'onOrBefore', date: asOfDate },
      });
      if (!r || r.effectiveRate.isZero()) continue;
      const closing = { rate: r.effectiveRate, rateIds: r.legs.map((l) => l.id) };
      rates.set(currency, {
        currency,
        rate: formatRate(r.effectiveRate),
        derivation: r.derivation,
        exchangeRateIds: closing.rateIds,
        closing,
      });
    }
  }
  const { lines, missing } = revalueBalances(figures, (currency) => rates.get(currency)?.closing ?? null, fc);
  return { figures, revalued: lines, rates, missing };
}

function balanceLines(m: Measured, fc: string, onlyDifferences: boolean): BalanceLine[] {
  const byKey = new Map(m.revalued.map((r) => [`${r.accountId}|${r.currency}`, r]));
  const out: BalanceLine[] = [];
  for (const f of m.figures) {
    const r = byKey.get(`${f.accountId}|${f.currency}`);
    if (onlyDifferences && (!r || r.difference.isZero())) continue;
    out.push({
      accountId: f.accountId,
      accountNumber: f.accountNumber,
      accountName: f.accountName,
      accountType: f.accountType,
      currency: f.currency,
      foreignAmount: money(f.foreignBalance, f.currency),
      carryingAmount: money(f.carryingAmount, fc),
      closingRate: r?.closingRate ? formatRate(r.closingRate.rate) : null,
      exchangeRateIds: r?.closingRate?.rateIds ?? [],
      revaluedAmount: r ? money(r.revaluedAmount, fc) : null,
      difference: r ? money(r.difference, fc) : null,
      differenceKind: r ? r.kind : null,
    });
  }
  return out;
}

const ratesList = (m: Measured): RateUsed[] =>
  [...m.rates.values()]
    .map(({ closing: _c, ...r }) => r)
    .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));

function totalOf(revalued: readonly RevaluedBalance[], kind: FxDifferenceKind): Decimal {
  return revalued.filter((r) => r.kind === kind).reduce((s, r) => s.plus(r.difference), ZERO);
}

// ---------------------------------------------------------------------------------------------------
// Open balances

/** GET …/foreign-currency-balances (viewer). */
export async function foreignCurrencyBalances(
  db: Db,
  access: Access,
  path: CompanyPath,
  q: { asOfDate: IsoDate; rateType?: RateType | undefined },
): Promise<ForeignCurrencyBalances> {
  const company = await enterCompany(db, access, path.organizationId, path.companyId, 'fx_revaluation:read');
  await access.authorize(path.organizationId, 'fx_revaluation:read');
  const types = typesOf(q.rateType);
  const m = await measure(db, company, q.asOfDate, types);
  return {
    companyId: company.id,
    asOfDate: q.asOfDate,
    functionalCurrency: company.functionalCurrency,
    rateTypes: types,
    balances: balanceLines(m, company.functionalCurrency, false),
    rates: ratesList(m),
    missingRates: m.missing,
  };
}

// ---------------------------------------------------------------------------------------------------
// Runs

function missingRateError(currency: string, company: CompanyRow, date: IsoDate, types: RateType[]) {
  return errors.ExchangeRateNotFoundError(`No ${currency}/${company.functionalCurrency} rate`, {
    fromCurrency: currency,
    toCurrency: company.functionalCurrency,
    date,
    rateType: types.join(','),
  });
}

function accountNotConfigured(companyId: string, setting: string): DomainError {
  return errors.FxGainLossAccountNotConfiguredError(
    'The company has no account for these exchange differences',
    { companyId, setting },
  );
}

const toSystemLine = (l: FxEntryLine): SystemLine => ({
  accountId: l.accountId,
  side: l.side,
  amount: l.amount,
  ...(l.currency
    ? { foreign: { currency: l.currency, rate: l.exchangeRate ?? ZERO, rateIds: l.exchangeRateIds } }
    : {}),
});

const swap = (l: FxEntryLine): FxEntryLine => ({ ...l, side: l.side === 'debit' ? 'credit' : 'debit' });

/**
 * POST …/fx-revaluations (admin). A dry run measures and answers without writing. Otherwise, in one
 * transaction: the company row is locked (see the module comment), the periods of the date (and of
 * the next day, for the reversal) are share-locked and must be open, no earlier run may still wait in
 * the workflow, every open currency needs a rate; then ONE entry (type `Adjusting`, source
 * `GeneralLedger`) books every difference, posted directly when the organization does not require
 * approval, else left as a `Draft`; with `autoReverse` its unrealised lines are reversed by a second
 * entry dated the next day (realised differences are final and are not reversed); the run is recorded.
 */

type LockedCompany = Awaited<ReturnType<typeof lockCompany>>;

/** What a dry run answers: the measured lines and totals, nothing written. */
function dryRunRecord(
  access: Access,
  path: CompanyPath,
  input: RunInput,
  company: { functionalCurrency: string },
  m: Measured,
): FxRevaluationRecord {
  const { organizationId, companyId } = path;
  const autoReverse = input.autoReverse ?? true;
  const reversalDate = autoReverse ? addDays(input.asOfDate, 1) : null;
  const types = typesOf(input.rateType);
  return {
    id: null,
    organizationId,
    companyId,
    asOfDate: input.asOfDate,
    rateType: input.rateType ?? null,
    rateTypes: types,
    autoReverse,
    dryRun: true,
    entryId: null,
    entryStatus: null,
    reversalEntryId: null,
    reversalDate,
    functionalCurrency: company.functionalCurrency,
    lines: balanceLines(m, company.functionalCurrency, true),
    rates: ratesList(m),
    totalUnrealized: money(totalOf(m.revalued, 'Unrealized'), company.functionalCurrency),
    totalRealized: money(totalOf(m.revalued, 'Realized'), company.functionalCurrency),
    createdBy: access.userId,
    createdAt: null,
  };
}

/**
 * The rates the run used are locked for use (a rate deleted meanwhile answers 409
 * ExchangeRateChangedError), and the gain/loss accounts the lines need are configured.
 */
async function checkRatesAndAccounts(tx: Tx, company: LockedCompany, m: Measured): Promise<void> {
  const companyId = company.id;
  const usedIds = [...new Set([...m.rates.values()].flatMap((r) => r.exchangeRateIds))];
  const locked = await lockRatesForUse(tx, company.organizationId, usedIds);
  if (locked.length < usedIds.length) {
    throw errors.ExchangeRateChangedError('An exchange rate used by the run was deleted; retry', {
      companyId,
    });
  }
  const needsUnrealized = m.revalued.some((r) => r.kind === 'Unrealized' && !r.difference.isZero());
  const needsRealized = m.revalued.some((r) => r.kind === 'Realized' && !r.difference.isZero());
  if (needsUnrealized && !company.unrealizedFxGainLossAccountId) {
    throw accountNotConfigured(companyId, 'unrealizedFxGainLossAccountId');
  }
  if (needsRealized && !company.realizedFxGainLossAccountId) {
    throw accountNotConfigured(companyId, 'realizedFxGainLossAccountId');
  }
}

/** The run's entry, and the reversal of its unrealised part the next day when asked. */
async function postRevaluationEntries(
  tx: Tx,
  run: {
    id: string;
    access: Access;
    company: LockedCompany;
    asOfDate: string;
    ref: { year: number; period: number };
    reversalDate: string | null;
    reversalRef: { year: number; period: number } | null;
    settings: { requireApproval: boolean; defaultTimezone: string };
  },
  m: Measured,
): Promise<{ entryId: string | null; entryStatus: string | null; reversalEntryId: string | null }> {
  const { id, access, company, asOfDate, ref, reversalDate, reversalRef, settings } = run;
  const byKind = revaluationEntryLines(m.revalued, {
    unrealized: company.unrealizedFxGainLossAccountId ?? '',
    realized: company.realizedFxGainLossAccountId ?? '',
  });
  const posted = !settings.requireApproval;
  const insert = (args: Parameters<typeof insertSystemEntry>[1]) => insertSystemEntry(tx, args, posted);
  const postingDate = todayIn(settings.defaultTimezone);
  const all = [...byKind.Unrealized, ...byKind.Realized];
  if (all.length === 0) return { entryId: null, entryStatus: null, reversalEntryId: null };
  const entry = await insert({
    company,
    description: `Foreign-currency revaluation as of ${asOfDate}`,
    transactionDate: asOfDate,
    postingDate,
    period: ref,
    entryType: 'Adjusting',
    sourceDocumentRef: refOf(id),
    lines: all.map(toSystemLine),
    userId: access.userId,
  });
  let reversalEntryId: string | null = null;
  if (reversalDate && reversalRef && byKind.Unrealized.length > 0) {
    const reversal = await insert({
      company,
      description: `Reversal of the unrealised foreign-currency revaluation as of ${asOfDate}`,
      transactionDate: reversalDate,
      postingDate,
      period: reversalRef,
      entryType: 'Reversing',
      sourceDocumentRef: refOf(id),
      lines: byKind.Unrealized.map(swap).map(toSystemLine),
      userId: access.userId,
    });
    reversalEntryId = reversal.id;
  }
  return { entryId: entry.id, entryStatus: entry.status, reversalEntryId };
}

export async function runRevaluation(
  db: Db,
  access: Access,
  path: CompanyPath,
  input: RunInput,
): Promise<FxRevaluationRecord> {
  const { organizationId, companyId } = path;
  const found = await enterCompany(db, access, organizationId, companyId, 'fx_revaluation:run');
  await access.authorize(organizationId, 'fx_revaluation:run');
  const types = typesOf(input.rateType);
  const autoReverse = input.autoReverse ?? true;
  const reversalDate = autoReverse ? addDays(input.asOfDate, 1) : null;

  if (input.dryRun) {
    const company = found;
    const m = await measure(db, company, input.asOfDate, types);
    if (m.missing.length > 0) throw missingRateError(m.missing[0]!, company, input.asOfDate, types);
    return dryRunRecord(access, path, input, company, m);
  }

  const settings = await organizationSettings(db, organizationId, access);
  return inTransaction(db, async (tx) => {
    const company = await lockCompany(tx, organizationId, companyId);
    if (!company.isActive) throw companyInactive(companyId);
    const ref = resolveFiscalPeriod(company, input.asOfDate, null, '/asOfDate');
    await lockPeriod(tx, { organizationId, company, ref, userId: access.userId, requireOpen: true });
    const reversalRef = reversalDate ? resolveFiscalPeriod(company, reversalDate, null, '/asOfDate') : null;
    if (reversalRef) {
      await lockPeriod(tx, {
        organizationId,
        company,
        ref: reversalRef,
        userId: access.userId,
        requireOpen: true,
      });
    }
    await refusePendingRun(tx, organizationId, companyId);

    const m = await measure(tx, company, input.asOfDate, types);
    if (m.missing.length > 0) throw missingRateError(m.missing[0]!, company, input.asOfDate, types);
    await checkRatesAndAccounts(tx, company, m);

    const id = uuidv7();
    const run = { id, access, company, asOfDate: input.asOfDate, ref, reversalDate, reversalRef, settings };
    const { entryId, entryStatus, reversalEntryId } = await postRevaluationEntries(tx, run, m);
    const fc = company.functionalCurrency;
    const lines = balanceLines(m, fc, true);
    const rates = ratesList(m);
    const row = {
      id,
      organizationId,
      companyId,
      asOfDate: input.asOfDate,
      rateType: input.rateType ?? null,
      autoReverse,
      entryId,
      reversalEntryId,
      lines,
      rates,
      createdBy: access.userId,
      createdAt: new Date(),
    };
    await tx.insert(fxRevaluations).values(row);
    await auditWrite(tx, access, 'FxRevaluation', { organizationId, id }, 'Create');
    return revaluationRecord(row, fc, entryStatus);
  });
}

type RevaluationRow = typeof fxRevaluations.$inferSelect;

function revaluationRecord(row: RevaluationRow, fc: string, entryStatus: string | null): FxRevaluationRecord {
  const lines = row.lines as BalanceLine[];
  const total = (kind: FxDifferenceKind) =>
    lines
      .filter((l) => l.differenceKind === kind && l.difference)
      .reduce((s, l) => s.plus(l.difference!.value), ZERO);
  const rateType = (row.rateType as RateType | null) ?? null;
  return {
    id: row.id,
    organizationId: row.organizationId,
    companyId: row.companyId,
    asOfDate: row.asOfDate,
    rateType,
    rateTypes: typesOf(rateType),
    autoReverse: row.autoReverse,
    dryRun: false,
    entryId: row.entryId,
    entryStatus,
    reversalEntryId: row.reversalEntryId,
    reversalDate: row.autoReverse ? addDays(row.asOfDate, 1) : null,
    functionalCurrency: fc,
    lines,
    rates: row.rates as RateUsed[],
    totalUnrealized: money(total('Unrealized'), fc),
    totalRealized: money(total('Realized'), fc),
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}

async function lockCompany(tx: Queryable, organizationId: string, companyId: string): Promise<CompanyRow> {
  return (await findCompany(tx, organizationId, companyId, 'no key update'))!;
}

/** 409 while an earlier run's entry is still in the workflow (it would be revalued twice). */
async function refusePendingRun(tx: Queryable, organizationId: string, companyId: string): Promise<void> {
  const [pending] = await queryRows<{ id: string; entry_id: string }>(
    tx,
    sql`select r.id::text as id, r.entry_id::text as entry_id from fx_revaluations r
        join journal_entries e on e.organization_id = ${organizationId} and e.id = r.entry_id
        where r.organization_id = ${organizationId} and r.company_id = ${companyId}
          and e.status in (${sql.join(
            UNPOSTED_STATUSES.map((s) => sql`${s}`),
            sql`, `,
          )})
        limit 1`,
  );
  if (pending) {
    throw errors.FxRevaluationPendingError('An earlier revaluation of the company is not posted yet', {
      companyId,
      revaluationId: pending.id,
      entryId: pending.entry_id,
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// Reads

const revaluationNotFound = (id: string) =>
  errors.FxRevaluationNotFoundError('Revaluation not found', { revaluationId: id });

async function entryStatuses(
  db: Queryable,
  organizationId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ id: string; status: string }>(
    db,
    sql`select id::text as id, status from journal_entries where organization_id = ${organizationId}
        and id in (${sql.join(
          ids.map((i) => sql`${i}::uuid`),
          sql`, `,
        )})`,
  );
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** GET …/fx-revaluations (viewer): newest date first. */
export async function listRevaluations(db: Db, access: Access, path: CompanyPath, page: PageParams) {
  const company = await enterCompany(db, access, path.organizationId, path.companyId, 'fx_revaluation:read');
  await access.authorize(path.organizationId, 'fx_revaluation:read');
  const where = inOrg(fxRevaluations, path.organizationId, { companyId: path.companyId });
  const order = [desc(fxRevaluations.asOfDate), desc(fxRevaluations.id)];
  return pagedRows(db, fxRevaluations, where, order, page, 'revaluations', async (rows) => {
    const statuses = await entryStatuses(
      db,
      path.organizationId,
      rows.flatMap((r) => (r.entryId ? [r.entryId] : [])),
    );
    return rows.map((r) =>
      revaluationRecord(r, company.functionalCurrency, r.entryId ? (statuses.get(r.entryId) ?? null) : null),
    );
  });
}

/** GET …/fx-revaluations/{revaluationId} (viewer). */
export async function getRevaluation(
  db: Db,
  access: Access,
  path: CompanyPath & { revaluationId: string },
): Promise<FxRevaluationRecord> {
  const company = await enterCompany(db, access, path.organizationId, path.companyId, 'fx_revaluation:read');
  const row = await requireRow(
    db,
    fxRevaluations,
    path.organizationId,
    { companyId: path.companyId, id: path.revaluationId },
    () => revaluationNotFound(path.revaluationId),
  );
  await access.authorize(path.organizationId, 'fx_revaluation:read');
  const statuses = await entryStatuses(db, path.organizationId, row.entryId ? [row.entryId] : []);
  return revaluationRecord(
    row,
    company.functionalCurrency,
    row.entryId ? (statuses.get(row.entryId) ?? null) : null,
  );
}
