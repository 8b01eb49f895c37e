/**
 * The consolidation engine: pure, deterministic, step by step.
 *
 * `createConsolidationExecution(input)` lets a caller persist each step as it starts and ends and
 * check for cancellation between steps; `runConsolidation(input)` runs all seven steps at once.
 */
import { dec, formatPercentage, ZERO } from '../money.ts';
import { acquisitionIssues } from './acquisition.ts';
import { type LineContributions, lineContributions } from './contributions.ts';
import { type StoredLineContributions, storedLineContributionsInSlices } from './contributions-stored.ts';
import type { CompanyDirectory } from './contributions-codec.ts';
import { applyGroupChart, ruleGroupAccountIssues } from './group-chart.ts';
import {
  formatDerivedPercentage,
  formatEffectivePercentage,
  nonControllingPercentage,
  type OwnershipTree,
  holdingOf,
  ownershipTree,
} from './ownership.ts';
import { buildSetup, type Setup, setupAsOf } from './setup.ts';
import { cashFlowFacts } from './statement-facts.ts';
import {
  type ConsolidationInput,
  type ConsolidationResult,
  type EliminationEntry,
  type RunMember,
  STEP_TYPES,
  type StepOutcome,
  type StepType,
  type TrialBalanceView,
  type ValidationIssue,
  type ValidationResult,
} from './types.ts';
import { validationIssues } from './validation-issues.ts';
import { ViewComputation } from './view.ts';
import { mapIcType } from './view-types.ts';

export interface ConsolidationExecution {
  /** the step that `runNextStep` will execute; null when the run has finished (completed or failed) */
  readonly nextStep: StepType | null;
  /** executes the next step (a Validate step with `skipValidation` is reported `Skipped`) */
  runNextStep(): StepOutcome;
  /**
   * `runNextStep` in slices: each `next()` does a bounded part of the step (at most one selector
   * list of one elimination rule) and the generator returns the step's outcome. A caller that
   * yields to other work between slices gets the same outcome as `runNextStep`. Drive it to its end
   * before calling anything else on the execution.
   */
  runNextStepInSlices(): Generator<void, StepOutcome, void>;
  /** the result so far; final once `nextStep` is null (steps not yet run are reported `Skipped`) */
  result(): ConsolidationResult;
  /**
   * The closing view's eliminations as balanced journal entries (rules in processing order, then
   * acquisitions); empty unless the run completed.
   */
  eliminationEntries(): EliminationEntry[];
  /**
   * The contributions to every line of both views in their stored form (the same text as packing
   * `result().contributions`, without building that first); null unless the run completed.
   * `members`: the run's members in the order the run stores them.
   */
  storedContributions(
    members: CompanyDirectory,
  ): { closing: StoredLineContributions[]; opening: StoredLineContributions[] } | null;
  /** `storedContributions` in slices (see `storedLineContributionsInSlices`); the same result. */
  storedContributionsInSlices(
    members: CompanyDirectory,
  ): Generator<void, { closing: StoredLineContributions[]; opening: StoredLineContributions[] } | null, void>;
}

class StepFailure extends Error {}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The ownership tree of the input, or null when its holdings are invalid (the run then fails). */
function treeOf(input: ConsolidationInput): OwnershipTree | null {
  const parent = input.companies.find((c) => c.role === 'Parent');
  if (!parent) return null;
  try {
    return ownershipTree(parent.companyId, input.companies.filter((c) => c.role === 'Member').map(holdingOf));
  } catch {
    return null;
  }
}

function runMembers(input: ConsolidationInput, notYetAcquired: ReadonlySet<string>): RunMember[] {
  const parent = input.companies.find((c) => c.role === 'Parent');
  const ordered = [...(parent ? [parent] : []), ...input.companies.filter((c) => c.role === 'Member')];
  const tree = treeOf(input);
  return ordered.map((c) => {
    const own = c.role === 'Parent' ? dec(100) : dec(c.ownershipPercentage);
    const full = c.role === 'Parent' || c.consolidationMethod === 'FullConsolidation';
    const node = tree?.nodes.get(c.companyId);
    const effective = node ? node.effective : own.div(100);
    return {
      companyId: c.companyId,
      companyName: c.companyName,
      role: c.role,
      consolidationMethod: c.role === 'Parent' ? 'FullConsolidation' : c.consolidationMethod,
      ownershipPercentage: formatPercentage(own),
      nonControllingInterestPercentage: node
        ? formatDerivedPercentage(nonControllingPercentage(node))
        : formatPercentage(full ? dec(100).minus(own) : ZERO),
      functionalCurrency: c.functionalCurrency,
      included:
        (c.consolidationMethod !== 'EquityMethod' || input.options.includeEquityMethodInvestments) &&
        !notYetAcquired.has(c.companyId),
      heldByCompanyId: c.role === 'Parent' ? null : (c.heldByCompanyId ?? null),
      effectiveOwnershipPercentage: formatEffectivePercentage(effective),
    };
  });
}

export function createConsolidationExecution(input: ConsolidationInput): ConsolidationExecution {
  return new Execution(input);
}

/** Runs all seven steps and returns the result. Deterministic: the same input gives the same result. */
export function runConsolidation(input: ConsolidationInput): ConsolidationResult {
  const ex = createConsolidationExecution(input);
  while (ex.nextStep !== null) ex.runNextStep();
  return ex.result();
}

class Execution implements ConsolidationExecution {
  private index = 0;
  private failed = false;
  private errorMessage: string | null = null;
  private readonly steps: StepOutcome[] = [];
  private issues: ValidationIssue[] | null = null;
  private setup: Setup | null = null;
  private closing: ViewComputation | null = null;
  private closingTb: TrialBalanceView | null = null;
  private openingTb: TrialBalanceView | null = null;
  /** The final views, kept for their contributions (computed only when asked for). */
  private traced: { closing: ViewComputation; opening: ViewComputation } | null = null;
  private contributions: { closing: LineContributions[]; opening: LineContributions[] } | null = null;

  private readonly input: ConsolidationInput;
  /** UNMAPPED_ACCOUNT and RULE_ACCOUNT_NOT_IN_GROUP_CHART errors of a group chart (reported by Validate) */
  private readonly chartIssues: ValidationIssue[];

  constructor(input: ConsolidationInput) {
    if (input.groupChart) {
      const mapped = applyGroupChart(input, input.groupChart);
      this.input = mapped.input;
      this.chartIssues = mapped.issues;
    } else {
      this.input = input;
      // A rule on a group account needs the chart (it cannot lose it while the rule names one).
      this.chartIssues = ruleGroupAccountIssues(input.rules, null);
    }
  }

  get nextStep(): StepType | null {
    return this.failed || this.index >= STEP_TYPES.length ? null : STEP_TYPES[this.index]!;
  }

  private addIssues(list: Iterable<ValidationIssue>): void {
    const arr = [...list];
    if (arr.length === 0) return;
    this.issues = [...(this.issues ?? []), ...arr];
  }

  runNextStep(): StepOutcome {
    const slices = this.runNextStepInSlices();
    for (;;) {
      const next = slices.next();
      if (next.done) return next.value;
    }
  }

  *runNextStepInSlices(): Generator<void, StepOutcome, void> {
    const stepType = this.nextStep;
    if (stepType === null) throw new Error('The consolidation run has no further step');
    this.index++;
    let outcome: StepOutcome;
    try {
      outcome = yield* this.execute(stepType);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      outcome = { stepType, status: 'Failed', details: null, errorMessage: message };
    }
    if (outcome.status === 'Failed') {
      this.failed = true;
      this.errorMessage = outcome.errorMessage;
    }
    this.steps.push(outcome);
    return outcome;
  }

  private get s(): Setup {
    if (!this.setup) this.setup = buildSetup(this.input);
    return this.setup;
  }

  private get view(): ViewComputation {
    if (!this.closing) this.closing = new ViewComputation(this.s, 'closing', this.input.closing);
    return this.closing;
  }

  private *execute(step: StepType): Generator<void, StepOutcome, void> {
    const ok = (details: string): StepOutcome => ({
      stepType: step,
      status: 'Completed',
      details,
      errorMessage: null,
    });
    const G = this.s.G;
    switch (step) {
      case 'Validate':
        return this.validateStep(ok);
      case 'Translate':
        return this.translateStep(ok);
      case 'Aggregate': {
        const v = this.view;
        v.aggregate();
        return ok(
          `Aggregated ${plural(this.s.consolidated.length, 'consolidated company', 'consolidated companies')} and ` +
            `${plural(this.s.investees.length, 'equity-method investee', 'equity-method investees')} into ${plural(v.lines.size, 'line', 'lines')}`,
        );
      }
      case 'MatchIC': {
        const v = this.view;
        const before = v.rates.fallbacks.size;
        v.matchIntercompany();
        this.addIssues([...v.rates.fallbacks.values()].slice(before));
        this.failOnMissingRates(v);
        return ok(
          `Collected ${plural(v.icCollected, 'matched intercompany transaction', 'matched intercompany transactions')}; ` +
            `mapped ${v.icItems.length} to elimination types`,
        );
      }
      case 'Eliminate': {
        const v = this.view;
        yield* v.eliminateInSlices();
        this.addIssues(v.eliminationIssues);
        this.addIssues(acquisitionIssues(v));
        const skipped = v.eliminations.length - v.appliedCount;
        return ok(
          `Applied ${v.appliedCount} of ${plural(v.eliminations.length, 'rule', 'rules')} (${skipped} skipped); ` +
            `total eliminations ${v.money(v.totalEliminations).value} ${G}`,
        );
      }
      case 'NCI': {
        const v = this.view;
        v.applyAdjustments();
        v.computeNci();
        let total = 0n;
        for (const d of v.nci) total += d.shareOfEquity + d.shareOfNetIncome;
        return ok(
          `Computed non-controlling interest for ${plural(v.nci.length, 'member', 'members')}: ${v.money(total).value} ${G}`,
        );
      }
      case 'GenerateTB':
        return yield* this.generateStep(ok);
    }
  }

  /** Step 1: the issues of the input (none when validation is skipped); fails on errors, or on warnings unless allowed. */
  private validateStep(ok: (details: string) => StepOutcome): StepOutcome {
    const step = 'Validate';
    if (this.input.options.skipValidation) {
      return { stepType: step, status: 'Skipped', details: 'Validation skipped', errorMessage: null };
    }
    const found = [...this.chartIssues, ...validationIssues(this.s)];
    this.issues = found;
    const errors = found.filter((i) => i.severity === 'Error').length;
    const warnings = found.length - errors;
    const summary = `Validated ${plural(this.s.included.length, 'company', 'companies')}: ${errors} error(s), ${warnings} warning(s)`;
    if (errors > 0 || (warnings > 0 && !this.input.options.continueOnWarnings)) {
      return {
        stepType: step,
        status: 'Failed',
        details: summary,
        errorMessage: `Validation failed with ${errors} error(s) and ${warnings} warning(s)`,
      };
    }
    return ok(summary);
  }

  /** Step 2: every member translated to G (refused while the group chart leaves accounts unmapped). */
  private translateStep(ok: (details: string) => StepOutcome): StepOutcome {
    const G = this.s.G;
    // Without validation the run still cannot aggregate accounts that have no group account,
    // nor book a rule to a group account the chart lacks.
    const unmapped = this.chartIssues.filter((i) => i.code === 'UNMAPPED_ACCOUNT');
    if (unmapped.length > 0) {
      throw new StepFailure(
        `Accounts with balances are not mapped to a group account: ${unmapped.map((i) => i.entityReference).join('; ')}`,
      );
    }
    if (this.chartIssues.length > 0) {
      throw new StepFailure(this.chartIssues.map((i) => i.message).join('; '));
    }
    const v = this.view;
    const { translatedCount } = v.translate();
    this.addIssues(v.rates.fallbacks.values());
    this.failOnMissingRates(v);
    return ok(`Translated ${plural(translatedCount, 'company', 'companies')} to ${G}`);
  }

  /** Step 7: the opening view computed whole, then both trial balances and the statement facts. */
  private *generateStep(ok: (details: string) => StepOutcome): Generator<void, StepOutcome, void> {
    const opening = new ViewComputation(
      setupAsOf(this.s, this.input.opening.asOfDate),
      'opening',
      this.input.opening,
    );
    opening.translate();
    opening.aggregate();
    opening.matchIntercompany();
    this.failOnMissingRates(opening);
    yield* opening.eliminateInSlices();
    opening.computeNci();
    opening.foldIntoRetainedEarnings();
    this.openingTb = opening.trialBalance();
    this.closingTb = this.view.trialBalance();
    this.closingTb.statementFacts = cashFlowFacts(this.view, opening);
    this.traced = { closing: this.view, opening };
    return ok(
      `Generated the closing trial balance (${plural(this.closingTb.lineItems.length, 'line', 'lines')}) and the ` +
        `opening trial balance (${plural(this.openingTb.lineItems.length, 'line', 'lines')})`,
    );
  }

  private failOnMissingRates(v: ViewComputation): void {
    if (v.rates.missing.size === 0) return;
    const missing = [...v.rates.missing.values()];
    // Each missing reference is reported once even when a later step finds it missing again.
    const known = new Set(
      (this.issues ?? []).filter((i) => i.code === 'MISSING_EXCHANGE_RATE').map((i) => i.entityReference),
    );
    this.addIssues(missing.filter((i) => !known.has(i.entityReference)));
    const refs = missing.map((i) => i.entityReference).join('; ');
    throw new StepFailure(
      `Missing exchange rate${missing.length === 1 ? '' : 's'}${v.view === 'opening' ? ' (opening view)' : ''}: ${refs}`,
    );
  }

  private retainedEarningsLine(): string {
    const parent = this.input.companies.find((c) => c.role === 'Parent');
    return parent?.retainedEarningsAccountNumber ?? 'RETAINED_EARNINGS';
  }

  private lineContributions(): { closing: LineContributions[]; opening: LineContributions[] } | null {
    if (!this.traced) return null;
    this.contributions ??= {
      closing: lineContributions(this.traced.closing, this.input.adjustments ?? []),
      opening: lineContributions(this.traced.opening),
    };
    return this.contributions;
  }

  storedContributions(
    members: CompanyDirectory,
  ): { closing: StoredLineContributions[]; opening: StoredLineContributions[] } | null {
    const slices = this.storedContributionsInSlices(members);
    for (;;) {
      const next = slices.next();
      if (next.done) return next.value;
    }
  }

  *storedContributionsInSlices(
    members: CompanyDirectory,
  ): Generator<
    void,
    { closing: StoredLineContributions[]; opening: StoredLineContributions[] } | null,
    void
  > {
    if (!this.traced || !this.closingTb) return null;
    const closing = yield* storedLineContributionsInSlices(
      this.traced.closing,
      this.input.adjustments ?? [],
      members,
    );
    const opening = yield* storedLineContributionsInSlices(this.traced.opening, [], members);
    return { closing, opening };
  }

  eliminationEntries(): EliminationEntry[] {
    if (!this.closing || !this.closingTb) return [];
    return [
      ...this.closing.entries,
      ...this.closing.acquisitions.map((a): EliminationEntry => ({
        source: 'Acquisition',
        eliminationRuleId: null,
        ruleName: null,
        companyId: a.analysis.companyId,
        lines: a.analysis.entries,
      })),
    ];
  }

  result(): ConsolidationResult {
    const steps: StepOutcome[] = [...this.steps];
    for (let i = steps.length; i < STEP_TYPES.length; i++) {
      steps.push({ stepType: STEP_TYPES[i]!, status: 'Skipped', details: null, errorMessage: null });
    }
    const validationResult: ValidationResult | null =
      this.issues === null
        ? null
        : { isValid: !this.issues.some((i) => i.severity === 'Error'), issues: this.issues };
    const completed = !this.failed && this.index >= STEP_TYPES.length;
    const members = runMembers(
      this.input,
      new Set((this.setup?.notYetAcquired ?? []).map((c) => c.companyId)),
    );
    if (!completed || !this.closingTb || !this.openingTb || !this.closing || !this.setup) {
      return {
        status: 'Failed',
        errorMessage:
          this.errorMessage ?? (this.failed ? 'Consolidation failed' : 'Consolidation not finished'),
        steps,
        validationResult,
        members,
        eliminations: [],
        exchangeRatesUsed: [],
        totals: null,
        closingTrialBalance: null,
        openingTrialBalance: null,
        eliminatedTransactionIds: [],
        acquisitionAnalysis: [],
        retainedEarningsLine: this.retainedEarningsLine(),
      };
    }
    const tb = this.closingTb;
    const done: ConsolidationResult = {
      status: 'Completed',
      errorMessage: null,
      steps,
      validationResult,
      members,
      eliminations: this.closing.eliminations,
      exchangeRatesUsed: this.setup.book.usages(),
      totals: {
        totalDebits: tb.totalDebits,
        totalCredits: tb.totalCredits,
        totalEliminations: tb.totalEliminations,
        totalNCI: tb.totalNCI,
        netIncome: tb.netIncome,
        netIncomeAttributableToParent: tb.netIncomeAttributableToParent,
        netIncomeAttributableToNCI: tb.netIncomeAttributableToNCI,
      },
      closingTrialBalance: tb,
      openingTrialBalance: this.openingTb,
      eliminatedTransactionIds: this.closing.eliminatedTransactionIds,
      acquisitionAnalysis: this.closing.acquisitions.map((a) => a.analysis),
      retainedEarningsLine: this.setup.reKey,
    };
    // The contributions are computed when first read (a run stores them in their packed form instead).
    if (this.traced) {
      Object.defineProperty(done, 'contributions', {
        enumerable: true,
        configurable: true,
        get: () => this.lineContributions(),
      });
    }
    return done;
  }
}

export { mapIcType };
