/** Public API of the pure consolidation engine (contract 3.12.4) and consolidated statements (3.12.5). */
export {
  type ConsolidationExecution,
  createConsolidationExecution,
  runConsolidation,
  validationIssues,
} from './engine.ts';
export { columnLedger } from './ledger.ts';
export * from './statements.ts';
export * from './types.ts';
export * from './group-chart.ts';
