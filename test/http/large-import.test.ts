/**
 * A trial-balance import larger than one write batch: 12,000 rows, so its accounts are created by
 * more than one statement (10,000 per statement) and its lines go into more than one posted entry
 * (at most 10,000 lines each). One bad row far into the file is named and nothing is written; the
 * corrected file is written whole, every account with its audit entry, and the company's trial
 * balance equals the file. The journal export then reads entries larger than its line budget.
 */
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import { balanceMismatches, type Company, createCompany } from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let org: { id: string };

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  org = await t.org(owner);
}, 60_000);

// With GROUPBOOK_CHECK_ROUTING=1 closing also checks the file's statements, which a busy machine
// makes slow.
afterAll(async () => {
  await t.close();
}, 120_000);

const ROWS = 12_000;
const HALF = ROWS / 2;

/**
 * Rows 1..6,000 debit asset accounts 1000001.., rows 6,001..12,000 credit liability accounts
 * 2000001.. with the same amounts in the same order: the file balances by construction.
 */
function file(): { csv: string; nets: Map<string, bigint>; lines: string[] } {
  const lines = ['accountNumber,accountName,debit,credit'];
  const nets = new Map<string, bigint>();
  const amount = (i: number) => BigInt((i % 900) + 100) * 100n + 25n; // cents
  const text = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
  for (let i = 0; i < HALF; i++) {
    const n = String(1_000_001 + i);
    lines.push(`${n},Asset ${i},${text(amount(i))},`);
    nets.set(n, amount(i));
  }
  for (let i = 0; i < HALF; i++) {
    const n = String(2_000_001 + i);
    lines.push(`${n},Liability ${i},,${text(amount(i))}`);
    nets.set(n, -amount(i));
  }
  return { csv: `${lines.join('\n')}\n`, nets, lines };
}

const query = () => ({
  organizationId: org.id,
  asOfDate: '2026-01-01',
  mode: 'Opening',
  createMissingAccounts: true,
  categoryRules: '1000000-1999999:CurrentAsset,2000000-2999999:CurrentLiability',
});

async function importCsv(c: Company, csv: string) {
  return t.post(`/api/v1/companies/${c.id}/trial-balance-imports`, {
    token: owner.token,
    body: csv,
    headers: { 'content-type': 'text/csv' },
    query: query(),
  });
}

const countOf = async (text: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: number }>(t.database.db, text))[0]!.n);

const companyCount = (table: string, c: Company) =>
  countOf(
    sql`select count(*)::int as n from ${sql.raw(table)} where organization_id = ${org.id} and company_id = ${c.id}`,
  );

const accountAudits = () =>
  countOf(
    sql`select count(*)::int as n from audit_log where organization_id = ${org.id} and entity_type = 'Account'`,
  );

describe('a trial-balance import larger than one write batch', () => {
  it('names a bad row far into the file and writes nothing; the corrected file is written whole', async () => {
    const c = await createCompany(t, org.id);
    const accountsBefore = await companyCount('accounts', c);
    const auditsBefore = await accountAudits();
    const { csv, nets, lines } = file();

    // Row 11,500 (line 11,500 of the file after the header): three decimals in a USD amount.
    const bad = [...lines];
    const cells = bad[11_500]!.split(',');
    cells[3] = '125.255';
    bad[11_500] = cells.join(',');
    const refused = await importCsv(c, `${bad.join('\n')}\n`);
    expect(refused.status).toBe(400);
    expect(refused.body._tag).toBe('TrialBalanceImportError');
    expect(refused.body.errors).toEqual([{ row: 11_500, column: 'credit', message: expect.any(String) }]);
    expect(await companyCount('accounts', c)).toBe(accountsBefore);
    expect(await companyCount('journal_entries', c)).toBe(0);
    expect(await companyCount('trial_balance_imports', c)).toBe(0);
    expect(await accountAudits()).toBe(auditsBefore);

    const res = await importCsv(c, csv);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    expect(res.body.import).toMatchObject({ rowCount: ROWS, createdAccountCount: ROWS });
    // 12,000 lines do not fit one entry of at most 10,000 lines.
    expect(res.body.import.journalEntryIds.length).toBeGreaterThanOrEqual(2);
    expect(await companyCount('accounts', c)).toBe(accountsBefore + ROWS);
    expect(await companyCount('journal_entries', c)).toBe(res.body.import.journalEntryIds.length);
    expect(await accountAudits()).toBe(auditsBefore + ROWS);

    // Each account's balance is its row: Σ of its lines, debit-positive, in cents.
    const booked = await queryRows<{ number: string; net: string }>(
      t.database.db,
      sql`select a.account_number as number,
            (coalesce(sum(l.debit_amount), 0) - coalesce(sum(l.credit_amount), 0)) * 100 as net
          from journal_lines l join accounts a on a.organization_id = l.organization_id and a.id = l.account_id
          where l.organization_id = ${org.id} and l.company_id = ${c.id}
          group by a.account_number`,
    );
    expect(new Map(booked.map((r) => [r.number, BigInt(r.net.replace(/\.0+$/, ''))]))).toEqual(nets);
    expect(await balanceMismatches(t, org.id)).toEqual([]);

    // The journal export holds every line, though each entry is larger than one read batch.
    const exported = await t.req('GET', '/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: org.id, companyId: c.id, format: 'csv' },
    });
    expect(exported.status).toBe(200);
    const rows = parse(exported.raw.body) as string[][];
    expect(rows.length - 1).toBe(ROWS);
    expect(new Set(rows.slice(1).map((r) => r[10])).size).toBe(ROWS);
  }, 240_000);
});
