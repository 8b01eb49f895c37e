/**
 * Pure statement builders for the company reports and the shared section helpers
 * that the consolidated statements reuse. No I/O: callers aggregate the ledger (see each
 * builder's input type for the exact aggregates) and pass figures in.
 */
export * from './balance-sheet.ts';
export * from './cash-flow.ts';
export * from './common.ts';
export * from './equity-statement.ts';
export * from './income-statement.ts';
export * from './trial-balance.ts';
