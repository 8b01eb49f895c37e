/** Public API of the pure consolidation engine and consolidated statements. */
export { type ConsolidationExecution, createConsolidationExecution, runConsolidation } from './engine.ts';
export { validationIssues } from './validation-issues.ts';
export { columnLedger } from './ledger.ts';
export * from './statements.ts';
export * from './statements-equity.ts';
export * from './types.ts';
export * from './group-chart.ts';
export {
  type AdjustmentContribution,
  type CompanyContribution,
  type ContributionItem,
  contributionsAddUp,
  type EliminationContribution,
  type LineContributions,
  lineContributions,
} from './contributions.ts';
