/**
 * `GROUPBOOK_CHECK_ROUTING=1 npx vitest run test/http`: the distribution check over every statement
 * of every test file that uses `createTestContext` (test/reliability/routing.ts says what is checked).
 * Each file records the statements the service sends for its requests (not the test's own queries)
 * and fails when it closes if one of them, or one of its transactions, cannot stay on one
 * organization. Without the variable nothing is recorded; test/reliability/routing.test.ts runs the
 * same check over every route.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordedStatement } from '../../src/db/statement-log.ts';
import { recordStatements } from '../../src/db/statement-log.ts';

export const routingMode = process.env.GROUPBOOK_CHECK_ROUTING === '1';

/** Set while the service handles a request of the test (and in the work that request starts). */
export const inService = new AsyncLocalStorage<boolean>();

export interface Recording {
  /** The problems found: `problem` and the statement, one entry each. */
  problems(): Promise<string[]>;
}

/** Switches recording on for the database opened by `open`. */
export async function recordWhileOpening<T>(
  open: () => Promise<T>,
): Promise<{ value: T; recording: Recording }> {
  const log: RecordedStatement[] = [];
  recordStatements((s) => {
    if (inService.getStore()) log.push(s);
  });
  let value: T;
  try {
    value = await open();
  } finally {
    recordStatements(null);
  }
  return {
    value,
    recording: {
      problems: async () => {
        const routing = await import('../reliability/routing.ts');
        await routing.loadParser();
        const kinds = routing.tableKindsOfRepository();
        const problems: string[] = [];
        const transactions = new Map<
          number,
          Array<{ text: string; verdict: ReturnType<typeof routing.checkStatement> }>
        >();
        for (const s of log) {
          const verdict = routing.checkStatement(s.text, s.params, kinds);
          for (const p of verdict.problems)
            problems.push(`${p}\n      ${s.text.replace(/\s+/g, ' ').slice(0, 600)}`);
          const tx = transactions.get(s.tx);
          if (tx) tx.push({ text: s.text, verdict });
          else transactions.set(s.tx, [{ text: s.text, verdict }]);
        }
        for (const statements of transactions.values())
          problems.push(...routing.checkTransaction(statements));
        console.info(`routing: ${log.length} statements in ${transactions.size} transactions checked`);
        return problems;
      },
    },
  };
}
