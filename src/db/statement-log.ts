/**
 * Statement recording, a test and diagnostic mode: every SQL statement the service sends, with its
 * parameters and the transaction it belongs to. The distribution check (test/reliability/routing.ts)
 * reads it to prove that each statement and each transaction stays within one organization.
 *
 * Off unless switched on before the database is opened — by `recordStatements()` in a test, or by the
 * environment variable `GROUPBOOK_RECORD_SQL=<file>` (JSON lines appended to the file). When off,
 * `openDatabase` wraps nothing, so the service runs exactly as without this module.
 */
import { appendFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface RecordedStatement {
  text: string;
  params: readonly unknown[];
  /** Same number for the statements of one transaction; a statement outside one has its own. */
  tx: number;
}

export type StatementRecorder = (statement: RecordedStatement) => void;

let recorder: StatementRecorder | null = null;
let transactions = 0;

/** Switches recording on (or off with null) for the databases opened from now on. */
export function recordStatements(next: StatementRecorder | null): void {
  recorder = next;
}

/** The recorder for a database being opened: the switched-on one, or one from GROUPBOOK_RECORD_SQL. */
export function activeRecorder(): StatementRecorder | null {
  if (recorder) return recorder;
  const file = process.env.GROUPBOOK_RECORD_SQL;
  if (!file) return null;
  return (statement) => appendFileSync(file, `${JSON.stringify(statement)}\n`);
}

const BEGIN_RE = /^\s*(begin|start\s+transaction)\b/i;
const END_RE = /^\s*(commit|end|rollback|abort)\s*;?\s*$/i;

/** A `pg` client class that reports its statements before sending them. */
export function recordingClient(Base: typeof pg.Client, record: StatementRecorder): typeof pg.Client {
  class RecordingClient extends Base {
    private tx: number | null = null;

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's many overloads, passed through
    override query(config: any, values?: any, callback?: any): any {
      const text: string | undefined = typeof config === 'string' ? config : config?.text;
      if (text !== undefined) {
        if (BEGIN_RE.test(text)) this.tx = ++transactions;
        const params = (typeof config === 'object' && config.values) || (Array.isArray(values) ? values : []);
        record({ text, params, tx: this.tx ?? ++transactions });
        if (END_RE.test(text)) this.tx = null;
      }
      return super.query(config, values, callback);
    }
  }
  return RecordingClient;
}

/** Reports the statements of a PGlite instance (its queries and those of its transactions). */
export function recordPglite(client: PGlite, record: StatementRecorder): void {
  const query = client.query.bind(client);
  client.query = ((text: string, params?: unknown[], options?: never) => {
    record({ text, params: params ?? [], tx: ++transactions });
    return query(text, params, options);
  }) as PGlite['query'];
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: (tx: Parameters<Parameters<PGlite['transaction']>[0]>[0]) => Promise<unknown>) =>
    transaction((tx) => {
      const id = ++transactions;
      const txQuery = tx.query.bind(tx);
      tx.query = ((text: string, params?: unknown[], options?: never) => {
        record({ text, params: params ?? [], tx: id });
        return txQuery(text, params, options);
      }) as typeof tx.query;
      return fn(tx);
    })) as PGlite['transaction'];
}
