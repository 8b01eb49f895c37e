/**
 * The distribution check (test/reliability/routing.ts) over statements recorded to a file by a server
 * started with GROUPBOOK_RECORD_SQL=<file> — for example by the benchmark:
 *
 *   npm run bench -- --quick --db postgres --record-sql /tmp/bench-sql.jsonl
 *   npx tsx scripts/check-routing.ts /tmp/bench-sql.jsonl
 *
 * Prints how many statements and transactions were checked, how many spanned organizations in the
 * two documented ways (reads of several organizations are counted as lists of the caller's: the file
 * does not say who the caller was), and every problem; exit code 1 when there is one.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RecordedStatement } from '../src/db/statement-log.ts';
import {
  checkStatement,
  checkTransaction,
  loadParser,
  type StatementVerdict,
  tableKindsOfRepository,
} from '../test/reliability/routing.ts';

async function main(file: string): Promise<void> {
  await loadParser();
  const kinds = tableKindsOfRepository();
  const transactions = new Map<number, Array<{ text: string; verdict: StatementVerdict }>>();
  const problems = new Map<string, number>();
  const spanning = new Map<string, number>();
  let statements = 0;
  const note = (problem: string) => problems.set(problem, (problems.get(problem) ?? 0) + 1);
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (!line.trim()) continue;
    const s = JSON.parse(line) as RecordedStatement;
    const verdict = checkStatement(s.text, s.params, kinds);
    statements++;
    for (const p of verdict.problems) note(`${p}\n    ${s.text.replace(/\s+/g, ' ').slice(0, 400)}`);
    if (verdict.spanning) spanning.set(verdict.spanning, (spanning.get(verdict.spanning) ?? 0) + 1);
    const tx = transactions.get(s.tx);
    if (tx) tx.push({ text: s.text, verdict });
    else transactions.set(s.tx, [{ text: s.text, verdict }]);
  }
  for (const tx of transactions.values()) for (const p of checkTransaction(tx)) note(p);
  const spans = [...spanning].map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
  process.stdout.write(
    `check-routing: ${statements} statements in ${transactions.size} transactions; spanning: ${spans}; ` +
      `${problems.size} distinct problems\n`,
  );
  for (const [p, n] of problems) process.stdout.write(`  ${n}× ${p}\n`);
  process.exit(problems.size > 0 ? 1 : 0);
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: tsx scripts/check-routing.ts <statements.jsonl>\n');
  process.exit(2);
}
void main(file);
