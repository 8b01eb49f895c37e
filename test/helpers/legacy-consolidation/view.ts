/*
 * FROZEN ORACLE — a copy of src/domain/consolidation/view.ts as of commit 4cf6b1c (the decimal.js engine
 * before the scaled-integer kernel), used only by test/domain/consolidation-kernel.test.ts to check that
 * the engine gives the same results. Do not edit it, and never use it outside that test.
 */
/**
 * Steps 2–6 of 3.12.4 for one view (closing or opening) and the trial balance of step 7.
 *
 * Working amounts are Decimals in the reporting currency G; every stored amount is rounded to G's
 * minor unit exactly where the contract says so.
 */
import type { AccountType } from '../../../src/domain/accounts.ts';
import { type Decimal, dec, money, roundTo, ZERO } from '../../../src/domain/money.ts';
import { type AccountPattern, matchesPattern, parsePattern } from '../../../src/domain/selectors.ts';
import { ViewRates } from '../../../src/domain/consolidation/rate-book.ts';
import {
  CTA_KEY,
  cmpAccountNumber,
  cmpCompany,
  cmpStr,
  figureAmount,
  groupPeriodOf,
  NCI_KEY,
  RE_SYNTHETIC,
  type Setup,
  sourceAccountOf,
} from './setup.ts';
import type {
  AccountSelectorInput,
  CompanyInput,
  ConsolidatedLine,
  EliminationResult,
  EliminationRuleInput,
  EliminationType,
  IntercompanyTransactionInput,
  IntercompanyTransactionType,
  LineType,
  NciDetail,
  TrialBalanceView,
  ValidationIssue,
  ViewData,
} from '../../../src/domain/consolidation/types.ts';

export type ItemKind = 'account' | 'priorYear' | 'cta';

/** One translated balance of a company (rounded to G's minor unit). */
export interface TranslatedItem {
  /** line key: an account number, the RE line key, or CTA */
  key: string;
  kind: ItemKind;
  accountType: AccountType;
  amount: Decimal;
}

export interface TranslatedCompany {
  company: CompanyInput;
  items: TranslatedItem[];
  cta: Decimal;
  /** Σ of the functional figures (zero for a balanced ledger) */
  functionalTotal: Decimal;
}

interface LineAcc {
  id: string;
  key: string;
  lineType: LineType;
  companyId: string | null;
  aggregated: Decimal;
  elimination: Decimal;
  nci: Decimal;
}

export interface IcItem {
  tx: IntercompanyTransactionInput;
  eliminationType: 'IntercompanySales' | 'IntercompanyDividends';
  amount: Decimal;
}

interface NciCalc {
  company: CompanyInput;
  pct: Decimal;
  netAssets: Decimal;
  netIncome: Decimal;
  shareOfEquity: Decimal;
  shareOfNetIncome: Decimal;
}

const IC_TYPE_MAP: Record<IntercompanyTransactionType, 'IntercompanySales' | 'IntercompanyDividends' | null> =
  {
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

const EM_TYPES = ['EquityMethodInvestment', 'EquityMethodIncome', 'EquityMethodReserve'] as const;
const EM_NUMBERS: Record<(typeof EM_TYPES)[number], string> = {
  EquityMethodInvestment: 'EQUITY_METHOD_INVESTMENT',
  EquityMethodIncome: 'EQUITY_METHOD_INCOME',
  EquityMethodReserve: 'EQUITY_METHOD_RESERVE',
};

function add(map: Map<string, Decimal>, key: string, v: Decimal): void {
  map.set(key, (map.get(key) ?? ZERO).plus(v));
}

export class ViewComputation {
  readonly rates: ViewRates;
  readonly translated = new Map<string, TranslatedCompany>();
  /** weighted contributions of step 3 per company and line key */
  readonly contributions = new Map<string, Map<string, Decimal>>();
  readonly lines = new Map<string, LineAcc>();
  icCollected = 0;
  icItems: IcItem[] = [];
  eliminations: EliminationResult[] = [];
  /** warnings of step 5 (IC_TRANSACTION_NOT_ELIMINATED, RULE_ACCOUNT_NOT_CONSOLIDATED) */
  eliminationIssues: ValidationIssue[] = [];
  eliminatedTransactionIds: string[] = [];
  totalEliminations = ZERO;
  appliedCount = 0;
  nci: NciCalc[] = [];

  constructor(
    readonly setup: Setup,
    readonly view: 'closing' | 'opening',
    readonly data: ViewData,
  ) {
    this.rates = new ViewRates(setup.book, view === 'opening' ? ' (opening view)' : '');
  }

  private round(v: Decimal): Decimal {
    return roundTo(v, this.setup.minor);
  }

  private line(id: string, key: string, lineType: LineType, companyId: string | null = null): LineAcc {
    let l = this.lines.get(id);
    if (!l) {
      l = { id, key, lineType, companyId, aggregated: ZERO, elimination: ZERO, nci: ZERO };
      this.lines.set(id, l);
    }
    return l;
  }

  /** The line of a key (account number, RE line key, CTA, NCI). */
  keyLine(key: string): LineAcc {
    const type: LineType =
      key === CTA_KEY
        ? 'CurrencyTranslationAdjustment'
        : key === NCI_KEY
          ? 'NonControllingInterest'
          : key === RE_SYNTHETIC
            ? 'RetainedEarnings'
            : 'Account';
    return this.line(key, key, type);
  }

  // ------------------------------------------------------------------------------------------
  // Step 2 — Translate
  // ------------------------------------------------------------------------------------------

  translate(): { translatedCount: number } {
    const ledgers = new Map<string, CompanyLedgerFigures>();
    for (const l of this.data.ledgers) {
      const list = ledgers.get(l.companyId) ?? [];
      list.push(...l.figures);
      ledgers.set(l.companyId, list);
    }
    let translatedCount = 0;
    for (const c of this.setup.included) {
      if (c.functionalCurrency !== this.setup.G) translatedCount++;
      this.translated.set(c.companyId, this.translateCompany(c, ledgers.get(c.companyId) ?? []));
    }
    return { translatedCount };
  }

  private translateCompany(c: CompanyInput, figures: CompanyLedgerFigures): TranslatedCompany {
    const { G } = this.setup;
    const cur = c.functionalCurrency;
    const foreign = cur !== G;
    const accounts = this.setup.accounts.get(c.companyId) ?? new Map();
    const monetary = new Map<string, Decimal>();
    const historical = new Map<string, Map<string, Decimal>>();
    const ytd = new Map<string, Map<string, Decimal>>();
    const prior = new Map<string, Map<string, Decimal>>();
    let functionalTotal = ZERO;
    for (const f of figures) {
      const a = accounts.get(f.accountNumber);
      if (!a)
        throw new Error(`Ledger figure for unknown account ${f.accountNumber} of company ${c.companyId}`);
      const amt = figureAmount(f);
      functionalTotal = functionalTotal.plus(amt);
      const t = a.accountType;
      if ((t === 'Asset' || t === 'Liability') && !a.isNonMonetary) {
        add(monetary, a.accountNumber, amt);
      } else if (t === 'Asset' || t === 'Liability' || t === 'Equity') {
        if (foreign && f.date === null) {
          throw new Error(
            `Ledger figure of account ${a.accountNumber} of company ${c.companyId} needs a date`,
          );
        }
        const byDate = historical.get(a.accountNumber) ?? new Map<string, Decimal>();
        add(byDate, foreign ? f.date! : '', amt);
        historical.set(a.accountNumber, byDate);
      } else {
        if (f.date === null) {
          throw new Error(
            `Revenue/expense figure of account ${a.accountNumber} of company ${c.companyId} needs a date`,
          );
        }
        if (f.date > this.data.asOfDate) {
          throw new Error(`Ledger figure dated ${f.date} after the view date ${this.data.asOfDate}`);
        }
        const target = f.date < this.data.yearStartDate ? prior : ytd;
        const byPeriod = target.get(a.accountNumber) ?? new Map<string, Decimal>();
        add(byPeriod, foreign ? groupPeriodOf(this.setup, f.date).startDate : '', amt);
        target.set(a.accountNumber, byPeriod);
      }
    }

    const items: TranslatedItem[] = [];
    const typeOf = (n: string): AccountType => accounts.get(n)!.accountType;
    const sortedKeys = (m: Map<string, unknown>) => [...m.keys()].sort(cmpAccountNumber);

    // Monetary Asset/Liability balances × CR.
    for (const n of sortedKeys(monetary)) {
      const bal = monetary.get(n)!;
      if (bal.isZero()) continue;
      let v = bal;
      if (foreign) {
        const r = this.rates.closing(cur, this.data.asOfDate);
        v = r ? bal.times(r) : ZERO;
      }
      items.push({ key: n, kind: 'account', accountType: typeOf(n), amount: this.round(v) });
    }
    // Equity and non-monetary lines × HR(transaction date), summed exactly, rounded once.
    for (const n of sortedKeys(historical)) {
      let total = ZERO;
      const byDate = historical.get(n)!;
      for (const d of [...byDate.keys()].sort(cmpStr)) {
        const amt = byDate.get(d)!;
        if (amt.isZero()) continue;
        if (!foreign) {
          total = total.plus(amt);
          continue;
        }
        const r = this.rates.historical(cur, d);
        if (r) total = total.plus(amt.times(r));
      }
      items.push({ key: n, kind: 'account', accountType: typeOf(n), amount: this.round(total) });
    }
    // Revenue and expense: each group-period part × AR(q).
    const translatePeriods = (byPeriod: Map<string, Decimal>): Decimal => {
      let total = ZERO;
      for (const start of [...byPeriod.keys()].sort(cmpStr)) {
        const amt = byPeriod.get(start)!;
        if (amt.isZero()) continue;
        if (!foreign) {
          total = total.plus(amt);
          continue;
        }
        const r = this.rates.average(cur, groupPeriodOf(this.setup, start));
        if (r) total = total.plus(amt.times(r));
      }
      return total;
    };
    for (const n of sortedKeys(ytd)) {
      items.push({
        key: n,
        kind: 'account',
        accountType: typeOf(n),
        amount: this.round(translatePeriods(ytd.get(n)!)),
      });
    }
    let priorTotal = ZERO;
    for (const n of sortedKeys(prior)) priorTotal = priorTotal.plus(translatePeriods(prior.get(n)!));
    items.push({
      key: this.setup.reKey,
      kind: 'priorYear',
      accountType: 'Equity',
      amount: this.round(priorTotal),
    });

    const nonZero = items.filter((i) => !i.amount.isZero());
    let sum = ZERO;
    for (const i of nonZero) sum = sum.plus(i.amount);
    const cta = sum.neg();
    if (!cta.isZero()) nonZero.push({ key: CTA_KEY, kind: 'cta', accountType: 'Equity', amount: cta });
    return { company: c, items: nonZero, cta, functionalTotal };
  }

  // ------------------------------------------------------------------------------------------
  // Step 3 — Aggregate
  // ------------------------------------------------------------------------------------------

  aggregate(): void {
    for (const c of this.setup.consolidated) {
      const w = this.setup.weight.get(c.companyId)!;
      const tc = this.translated.get(c.companyId)!;
      const contrib = new Map<string, Decimal>();
      let sum = ZERO;
      for (const item of tc.items) {
        if (item.kind === 'cta') continue;
        const v = this.round(w.times(item.amount));
        add(contrib, item.key, v);
        sum = sum.plus(v);
      }
      // round(w × CTA(c)) plus the rounding residual = exactly what makes the weighted balances sum to zero.
      if (!sum.isZero()) add(contrib, CTA_KEY, sum.neg());
      this.contributions.set(c.companyId, contrib);
      for (const [key, v] of contrib) {
        const l = this.keyLine(key);
        l.aggregated = l.aggregated.plus(v);
      }
    }
    for (const e of this.setup.investees) {
      const s = this.setup.ownership.get(e.companyId)!.div(100);
      const tc = this.translated.get(e.companyId)!;
      let na = ZERO;
      let rev = ZERO;
      for (const i of tc.items) {
        if (i.kind !== 'account') continue;
        if (i.accountType === 'Asset' || i.accountType === 'Liability') na = na.plus(i.amount);
        if (i.accountType === 'Revenue' || i.accountType === 'Expense') rev = rev.plus(i.amount);
      }
      const ni = rev.neg();
      const inv = this.round(s.times(na));
      const inc = this.round(s.times(ni));
      const lineOf = (t: (typeof EM_TYPES)[number]) =>
        this.line(`${t}|${e.companyId}`, EM_NUMBERS[t], t, e.companyId);
      lineOf('EquityMethodInvestment').aggregated = inv;
      lineOf('EquityMethodIncome').aggregated = inc.neg();
      lineOf('EquityMethodReserve').aggregated = inv.minus(inc).neg();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Step 4 — MatchIC
  // ------------------------------------------------------------------------------------------

  matchIntercompany(): void {
    const { G, consolidatedIds, weight } = this.setup;
    const txs = this.data.intercompanyTransactions
      .filter(
        (t) =>
          consolidatedIds.has(t.fromCompanyId) &&
          consolidatedIds.has(t.toCompanyId) &&
          t.fromCompanyId !== t.toCompanyId &&
          t.transactionDate >= this.data.yearStartDate &&
          t.transactionDate <= this.data.asOfDate &&
          (t.matchingStatus === 'Matched' || t.matchingStatus === 'VarianceApproved'),
      )
      .sort((a, b) => cmpStr(a.transactionDate, b.transactionDate) || cmpStr(a.id, b.id));
    this.icCollected = txs.length;
    for (const tx of txs) {
      const type = IC_TYPE_MAP[tx.transactionType];
      if (!type) continue;
      let amount = dec(tx.amount);
      if (tx.currency !== G) {
        const r = this.rates.average(tx.currency, groupPeriodOf(this.setup, tx.transactionDate));
        amount = r ? amount.times(r) : ZERO;
      }
      const wFrom = weight.get(tx.fromCompanyId)!;
      const wTo = weight.get(tx.toCompanyId)!;
      const w = wFrom.lessThan(wTo) ? wFrom : wTo;
      this.icItems.push({ tx, eliminationType: type, amount: this.round(amount.times(w)) });
    }
  }

  // ------------------------------------------------------------------------------------------
  // Step 5 — Eliminate
  // ------------------------------------------------------------------------------------------

  eliminate(): void {
    const { G, consolidatedIds } = this.setup;
    const working = new Map<string, Map<string, Decimal>>();
    for (const c of this.setup.consolidated) {
      working.set(c.companyId, new Map(this.contributions.get(c.companyId) ?? []));
    }
    const patternCache = new Map<string, AccountPattern | null>();
    const pattern = (text: string) => {
      if (!patternCache.has(text)) patternCache.set(text, parsePattern(text));
      return patternCache.get(text) ?? null;
    };
    // Companies whose non-zero balances a rule's selectors matched (for IC_DIFFERENCE, added later).
    let touched = new Set<string>();
    const matchedSum = (selectors: AccountSelectorInput[]): Decimal => {
      const seen = new Set<string>();
      let total = ZERO;
      for (const sel of selectors) {
        const p = pattern(sel.accountNumber);
        if (!p) continue;
        const companies = sel.companyId === null ? [...working.keys()] : [sel.companyId];
        for (const cid of companies) {
          const balances = working.get(cid);
          if (!balances) continue;
          for (const [key, v] of balances) {
            if (!matchesPattern(p, key)) continue;
            const id = `${cid}|${key}`;
            if (seen.has(id)) continue;
            seen.add(id);
            total = total.plus(v);
            if (!v.isZero()) touched.add(cid);
          }
        }
      }
      return total;
    };
    const assigned = new Set<string>();
    const received: IcItem[] = [];

    for (const rule of this.setup.rules) {
      touched = new Set<string>();
      const S = matchedSum(rule.sourceAccounts);
      const T = rule.targetAccounts.length > 0 ? matchedSum(rule.targetAccounts) : ZERO;
      const ruleCompanies = touched;
      const base = {
        eliminationRuleId: rule.id,
        ruleName: rule.name,
        eliminationType: rule.eliminationType,
        priority: rule.priority,
        sourceBalance: money(S, G),
        targetBalance: money(T, G),
        debitAccountNumber: rule.debitAccount.accountNumber,
        creditAccountNumber: rule.creditAccount.accountNumber,
      };
      if (rule.triggerConditions.length > 0) {
        const holds = rule.triggerConditions.some((cond) => {
          const sum = matchedSum(cond.sourceAccounts).abs();
          return cond.minimumAmount === null
            ? !sum.isZero()
            : sum.greaterThanOrEqualTo(dec(cond.minimumAmount));
        });
        if (!holds) {
          this.eliminations.push({
            ...base,
            status: 'Skipped',
            skipReason: 'TRIGGER_NOT_MET',
            amount: null,
            intercompanyTransactionIds: [],
          });
          continue;
        }
      }
      const mine: IcItem[] = [];
      if (rule.eliminationType === 'IntercompanySales' || rule.eliminationType === 'IntercompanyDividends') {
        const inScope = ruleScope(rule, consolidatedIds);
        for (const item of this.icItems) {
          if (item.eliminationType !== rule.eliminationType || assigned.has(item.tx.id)) continue;
          if (!inScope(item.tx.fromCompanyId) || !inScope(item.tx.toCompanyId)) continue;
          assigned.add(item.tx.id);
          mine.push(item);
        }
      }
      let A: Decimal;
      if (mine.length > 0) {
        A = ZERO;
        for (const m of mine) A = A.plus(m.amount);
      } else if (rule.targetAccounts.length > 0) {
        A = S.abs().lessThan(T.abs()) ? S.abs() : T.abs();
      } else {
        A = S.abs();
      }
      const ids = mine.map((m) => m.tx.id);
      if (A.isZero()) {
        this.eliminations.push({
          ...base,
          status: 'Skipped',
          skipReason: 'ZERO_AMOUNT',
          amount: null,
          intercompanyTransactionIds: ids,
        });
        continue;
      }
      const dr = rule.debitAccount;
      const cr = rule.creditAccount;
      if (!consolidatedIds.has(dr.companyId) || !consolidatedIds.has(cr.companyId)) {
        this.eliminations.push({
          ...base,
          status: 'Skipped',
          skipReason: 'ACCOUNT_COMPANY_NOT_CONSOLIDATED',
          amount: null,
          intercompanyTransactionIds: ids,
        });
        const which = consolidatedIds.has(dr.companyId) ? cr : dr;
        this.eliminationIssues.push({
          severity: 'Warning',
          code: 'RULE_ACCOUNT_NOT_CONSOLIDATED',
          message:
            `Rule '${rule.name}' was skipped: account ${which.accountNumber} belongs to company ${which.companyId}, ` +
            'which is not consolidated line by line',
          entityReference: rule.id,
        });
        continue;
      }
      add(working.get(dr.companyId)!, dr.accountNumber, A);
      add(working.get(cr.companyId)!, cr.accountNumber, A.neg());
      const dl = this.keyLine(dr.accountNumber);
      dl.elimination = dl.elimination.plus(A);
      const cl = this.keyLine(cr.accountNumber);
      cl.elimination = cl.elimination.minus(A);
      this.totalEliminations = this.totalEliminations.plus(A);
      this.appliedCount++;
      received.push(...mine);
      this.eliminations.push({
        ...base,
        status: 'Applied',
        skipReason: null,
        amount: money(A, G),
        intercompanyTransactionIds: ids,
      });
      // Added with the IC_DIFFERENCE warning: a balance-based rule whose sides differ.
      if (mine.length === 0 && rule.targetAccounts.length > 0 && !S.abs().equals(T.abs())) {
        const names = [...ruleCompanies]
          .map((id) => this.setup.companies.get(id)!)
          .sort(
            (a, b) =>
              cmpStr(a.companyName.toLowerCase(), b.companyName.toLowerCase()) ||
              cmpStr(a.companyId, b.companyId),
          )
          .map((c) => c.companyName);
        this.eliminationIssues.push({
          severity: 'Warning',
          code: 'IC_DIFFERENCE',
          message:
            `Rule '${rule.name}' eliminated ${money(A, G).value} ${G} of balances that differ: ` +
            `source ${money(S, G).value}, target ${money(T, G).value}; a residual of ` +
            `${money(S.abs().minus(T.abs()).abs(), G).value} ${G} remains on the consolidated statements ` +
            `(companies: ${names.join(', ')})`,
          entityReference: rule.id,
        });
      }
    }
    const receivedIds = new Set(received.map((r) => r.tx.id));
    for (const item of this.icItems) {
      if (receivedIds.has(item.tx.id)) continue;
      this.eliminationIssues.push({
        severity: 'Warning',
        code: 'IC_TRANSACTION_NOT_ELIMINATED',
        message:
          `Intercompany ${item.tx.transactionType} of ${item.tx.transactionDate} (${formatPlain(item.tx.amount)} ${item.tx.currency}) ` +
          'was not eliminated by any applied rule',
        entityReference: item.tx.id,
      });
    }
    this.eliminatedTransactionIds = [...receivedIds].sort(cmpStr);
  }

  // ------------------------------------------------------------------------------------------
  // Step 6 — NCI
  // ------------------------------------------------------------------------------------------

  computeNci(): void {
    const members = this.setup.consolidated
      .filter(
        (c) =>
          c.role === 'Member' &&
          c.consolidationMethod === 'FullConsolidation' &&
          this.setup.ownership.get(c.companyId)!.lessThan(100),
      )
      .sort(cmpCompany);
    for (const m of members) {
      const pct = dec(100).minus(this.setup.ownership.get(m.companyId)!);
      const pi = pct.div(100);
      const tc = this.translated.get(m.companyId)!;
      let moved = ZERO;
      let equity = ZERO;
      let rev = ZERO;
      for (const item of tc.items) {
        if (item.accountType === 'Revenue' || item.accountType === 'Expense') {
          rev = rev.plus(item.amount);
          continue;
        }
        if (item.accountType !== 'Equity') continue;
        equity = equity.plus(item.amount);
        const x = this.round(pi.times(item.amount));
        if (x.isZero()) continue;
        const l = this.keyLine(item.key);
        l.nci = l.nci.minus(x);
        const n = this.keyLine(NCI_KEY);
        n.nci = n.nci.plus(x);
        moved = moved.plus(x);
      }
      const netIncome = rev.neg();
      this.nci.push({
        company: m,
        pct,
        netIncome,
        netAssets: equity.neg().plus(netIncome),
        shareOfEquity: moved.neg(),
        shareOfNetIncome: this.round(pi.times(netIncome)),
      });
    }
  }

  /** Opening view: fold Revenue/Expense lines into the RE line and move the NCI share of income to NCI. */
  foldIntoRetainedEarnings(): void {
    const re = this.keyLine(this.setup.reKey);
    for (const [id, l] of [...this.lines]) {
      if (l === re) continue;
      const type = this.lineAccountType(l);
      if (type !== 'Revenue' && type !== 'Expense') continue;
      re.aggregated = re.aggregated.plus(l.aggregated);
      re.elimination = re.elimination.plus(l.elimination);
      re.nci = re.nci.plus(l.nci);
      this.lines.delete(id);
    }
    for (const d of this.nci) {
      if (d.shareOfNetIncome.isZero()) continue;
      re.nci = re.nci.plus(d.shareOfNetIncome);
      const n = this.keyLine(NCI_KEY);
      n.nci = n.nci.minus(d.shareOfNetIncome);
      d.shareOfEquity = d.shareOfEquity.plus(d.shareOfNetIncome);
      d.shareOfNetIncome = ZERO;
      d.netIncome = ZERO;
    }
  }

  private lineAccountType(l: LineAcc): AccountType {
    switch (l.lineType) {
      case 'Account':
        return this.sourceOf(l.key).accountType;
      case 'EquityMethodInvestment':
        return 'Asset';
      case 'EquityMethodIncome':
        return 'Revenue';
      default:
        return 'Equity';
    }
  }

  private sourceOf(accountNumber: string) {
    const a = sourceAccountOf(this.setup, accountNumber);
    if (!a) throw new Error(`No source account for account number ${accountNumber}`);
    return a;
  }

  // ------------------------------------------------------------------------------------------
  // Step 7 — trial balance of this view
  // ------------------------------------------------------------------------------------------

  trialBalance(): TrialBalanceView {
    const { G } = this.setup;
    const out: { line: ConsolidatedLine; rank: [number, string, string, number] }[] = [];
    let debits = ZERO;
    let credits = ZERO;
    let revExp = ZERO;
    for (const l of this.lines.values()) {
      if (l.aggregated.isZero() && l.elimination.isZero() && l.nci.isZero()) continue;
      const consolidated = l.aggregated.plus(l.elimination).plus(l.nci);
      const attrs = this.lineAttributes(l);
      if (attrs.accountType === 'Revenue' || attrs.accountType === 'Expense')
        revExp = revExp.plus(consolidated);
      const debit = consolidated.greaterThan(0) ? consolidated : ZERO;
      const credit = consolidated.lessThan(0) ? consolidated.neg() : ZERO;
      debits = debits.plus(debit);
      credits = credits.plus(credit);
      out.push({
        line: {
          accountNumber: l.key,
          accountName: attrs.name,
          accountType: attrs.accountType,
          accountCategory: attrs.accountCategory,
          lineType: l.lineType,
          companyId: l.companyId,
          isCashEquivalent: attrs.isCashEquivalent,
          cashFlowCategory: attrs.cashFlowCategory,
          aggregatedBalance: money(l.aggregated, G),
          eliminationAmount: money(l.elimination, G),
          nciAmount: money(l.nci, G),
          consolidatedBalance: money(consolidated, G),
          debitBalance: money(debit, G),
          creditBalance: money(credit, G),
        },
        rank: this.rank(l),
      });
    }
    out.sort((a, b) => compareRank(a.rank, b.rank));
    const netIncome = revExp.neg();
    let niNci = ZERO;
    let shareOfEquity = ZERO;
    for (const d of this.nci) {
      niNci = niNci.plus(d.shareOfNetIncome);
      shareOfEquity = shareOfEquity.plus(d.shareOfEquity);
    }
    return {
      view: this.view,
      periodRef: { ...this.setup.input.periodRef },
      asOfDate: this.data.asOfDate,
      yearStartDate: this.setup.input.yearStartDate,
      currency: G,
      lineItems: out.map((o) => o.line),
      totalDebits: money(debits, G),
      totalCredits: money(credits, G),
      isBalanced: debits.equals(credits),
      totalEliminations: money(this.totalEliminations, G),
      totalNCI: money(shareOfEquity.plus(niNci), G),
      netIncome: money(netIncome, G),
      netIncomeAttributableToParent: money(netIncome.minus(niNci), G),
      netIncomeAttributableToNCI: money(niNci, G),
      nonControllingInterests: this.nci.map((d): NciDetail => ({
        companyId: d.company.companyId,
        companyName: d.company.companyName,
        nonControllingInterestPercentage: d.pct.toFixed(2),
        netAssets: money(d.netAssets, G),
        netIncome: money(d.netIncome, G),
        nciShareOfEquity: money(d.shareOfEquity, G),
        nciShareOfNetIncome: money(d.shareOfNetIncome, G),
      })),
    };
  }

  private rank(l: LineAcc): [number, string, string, number] {
    switch (l.lineType) {
      case 'Account':
        return [0, l.key, '', 0];
      case 'RetainedEarnings':
        return [1, '', '', 0];
      case 'CurrencyTranslationAdjustment':
        return [2, '', '', 0];
      case 'NonControllingInterest':
        return [3, '', '', 0];
      default: {
        const c = this.setup.companies.get(l.companyId!)!;
        return [
          4,
          c.companyName.toLowerCase(),
          c.companyId,
          EM_TYPES.indexOf(l.lineType as (typeof EM_TYPES)[number]),
        ];
      }
    }
  }

  private lineAttributes(l: LineAcc): Pick<
    ConsolidatedLine,
    'accountType' | 'accountCategory' | 'isCashEquivalent' | 'cashFlowCategory'
  > & {
    name: string;
  } {
    const synthetic = { isCashEquivalent: false, cashFlowCategory: null };
    const companyName = l.companyId ? this.setup.companies.get(l.companyId)!.companyName : '';
    switch (l.lineType) {
      case 'Account': {
        const a = this.sourceOf(l.key);
        return {
          name: a.name,
          accountType: a.accountType,
          accountCategory: a.accountCategory,
          isCashEquivalent: a.isCashEquivalent,
          cashFlowCategory: a.cashFlowCategory,
        };
      }
      case 'RetainedEarnings':
        return {
          name: 'Retained earnings',
          accountType: 'Equity',
          accountCategory: 'RetainedEarnings',
          ...synthetic,
        };
      case 'CurrencyTranslationAdjustment':
        return {
          name: 'Cumulative translation adjustment',
          accountType: 'Equity',
          accountCategory: 'OtherComprehensiveIncome',
          ...synthetic,
        };
      case 'NonControllingInterest':
        return {
          name: 'Non-controlling interest',
          accountType: 'Equity',
          accountCategory: 'NonControllingInterest',
          ...synthetic,
        };
      case 'EquityMethodInvestment':
        return {
          name: `Investment in ${companyName} (equity method)`,
          accountType: 'Asset',
          accountCategory: 'NonCurrentAsset',
          ...synthetic,
        };
      case 'EquityMethodIncome':
        return {
          name: `Share of profit of ${companyName}`,
          accountType: 'Revenue',
          accountCategory: 'OtherRevenue',
          ...synthetic,
        };
      case 'EquityMethodReserve':
        return {
          name: `Equity-method reserve – ${companyName}`,
          accountType: 'Equity',
          accountCategory: 'RetainedEarnings',
          ...synthetic,
        };
      default:
        throw new Error(`The legacy engine has no line type ${l.lineType}`);
    }
  }
}

type CompanyLedgerFigures = ViewData['ledgers'][number]['figures'];

function compareRank(a: [number, string, string, number], b: [number, string, string, number]): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  if (a[0] === 0) return cmpAccountNumber(a[1], b[1]);
  return cmpStr(a[1], b[1]) || cmpStr(a[2], b[2]) || a[3] - b[3];
}

/** Companies in a rule's scope: those named by its selectors, all consolidated ones if any is null. */
function ruleScope(rule: EliminationRuleInput, consolidatedIds: Set<string>): (companyId: string) => boolean {
  const selectors = [...rule.sourceAccounts, ...rule.targetAccounts];
  if (selectors.some((s) => s.companyId === null)) return (id) => consolidatedIds.has(id);
  const named = new Set(selectors.map((s) => s.companyId!));
  return (id) => named.has(id) && consolidatedIds.has(id);
}

function formatPlain(v: unknown): string {
  return dec(v as string).toFixed();
}
