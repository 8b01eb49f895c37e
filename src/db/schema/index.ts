export * from './core.ts';
export * from './group.ts';
export * from './ledger.ts';
export * from './events.ts';
