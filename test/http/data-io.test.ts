/**
 * Data in and out: trial-balance imports (CSV and JSON), bulk journal entries, CSV and XLSX exports of
 * the reports and the journal, the general-ledger report and the journal list's `accountId` filter.
 * Spreadsheets are read back with a real XLSX reader and compared figure by figure with the JSON
 * answers.
 */
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { Type } from '../../src/http/schemas.ts';
import { JournalEntry } from '../../src/modules/journal/routes.ts';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import {
  balanceMismatches,
  type Company,
  createCompany,
  currencyBalanceMismatches,
} from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let member: TestUser;
let viewer: TestUser;
let org: { id: string };

const JE = '/api/v1/journal-entries';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const usd = (value: string) => ({ value, currency: 'USD' });

beforeAll(async () => {
  t = await createTestContext();
  [owner, member, viewer] = await Promise.all([t.user('owner'), t.user('member'), t.user('viewer')]);
  org = await t.org(owner);
  await t.addMember(owner, org.id, member, 'member');
  await t.addMember(owner, org.id, viewer, 'viewer');
}, 60_000);

afterAll(async () => {
  await t.close();
});

// ---------------------------------------------------------------------------------------------------
// Fixtures

/** The 40 accounts of the subsidiary: number, name, and a balance per file (debit-positive cents). */
function subsidiaryAccounts(): { number: string; name: string }[] {
  const out: { number: string; name: string }[] = [];
  for (let i = 1; i <= 12; i++) out.push({ number: String(1000 + i), name: `Asset ${i}` });
  for (let i = 1; i <= 10; i++) out.push({ number: String(2000 + i), name: `Liability ${i}` });
  for (let i = 1; i <= 4; i++) out.push({ number: String(3000 + i), name: `Equity ${i}` });
  for (let i = 1; i <= 6; i++) out.push({ number: String(4000 + i), name: `Revenue ${i}` });
  for (let i = 1; i <= 8; i++) out.push({ number: String(5000 + i), name: `Expense ${i}` });
  return out;
}

const RULES =
  '1000-1999:CurrentAsset,2000-2999:CurrentLiability,3000-3999:ContributedCapital,4000-4999:OperatingRevenue,5000-5999:OperatingExpense';

const cents = (n: bigint) => {
  const neg = n < 0n;
  const a = neg ? -n : n;
  return `${neg ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
};

/**
 * Balances of a file: every account gets a balance on its normal side from `seed`, and the last
 * equity account takes the amount that balances the file.
 */
function balances(seed: number): Map<string, bigint> {
  const accounts = subsidiaryAccounts();
  const out = new Map<string, bigint>();
  let sum = 0n;
  accounts.forEach((a, i) => {
    if (a.number === '3004') return;
    const magnitude = BigInt(((i + 1) * 7919 * seed) % 500_000) + 1000n;
    const normalDebit = a.number.startsWith('1') || a.number.startsWith('5');
    const net = normalDebit ? magnitude : -magnitude;
    out.set(a.number, net);
    sum += net;
  });
  out.set('3004', -sum);
  return out;
}

function csvOf(map: Map<string, bigint>, options: { sep?: string; bom?: boolean; header?: string[] } = {}) {
  const sep = options.sep ?? ',';
  const header = options.header ?? ['accountNumber', 'accountName', 'debit', 'credit'];
  const names = new Map(subsidiaryAccounts().map((a) => [a.number, a.name]));
  const lines = [header.join(sep)];
  for (const [number, net] of map) {
    lines.push(
      [number, names.get(number), net > 0n ? cents(net) : '', net < 0n ? cents(-net) : ''].join(sep),
    );
  }
  return `${options.bom ? '\uFEFF' : ''}${lines.join('\r\n')}\r\n`;
}

async function importCsv(
  c: Company,
  csv: string,
  query: Record<string, string | boolean>,
  headers: Record<string, string> = {},
) {
  return t.post(`/api/v1/companies/${c.id}/trial-balance-imports`, {
    token: owner.token,
    body: csv,
    headers: { 'content-type': 'text/csv', ...headers },
    query,
  });
}

async function tbNets(c: Company, asOfDate: string): Promise<Map<string, bigint>> {
  const res = await t.get('/api/v1/reports/trial-balance', {
    token: owner.token,
    query: { organizationId: org.id, companyId: c.id, asOfDate },
  });
  expect(res.status).toBe(200);
  const toCents = (v: string) => BigInt(v.replace('.', ''));
  return new Map(
    (res.body.lineItems as any[])
      .map((l) => [l.accountNumber, toCents(l.debitBalance.value) - toCents(l.creditBalance.value)] as const)
      .filter(([, v]) => v !== 0n),
  );
}

const count = async (table: string, c: Company) =>
  Number(
    (
      await queryRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from ${sql.raw(table)} where organization_id = ${org.id} and company_id = ${c.id}`,
      )
    )[0]!.n,
  );

// ---------------------------------------------------------------------------------------------------

describe('trial-balance import', () => {
  it('imports a 40-account CSV as Opening, then a changed file as Periodic: balances equal the files', async () => {
    const c = await createCompany(t, org.id);
    const opening = balances(3);
    const res = await importCsv(c, csvOf(opening), {
      organizationId: org.id,
      asOfDate: '2026-01-01',
      mode: 'Opening',
      createMissingAccounts: true,
      categoryRules: RULES,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.import).toMatchObject({
      companyId: c.id,
      mode: 'Opening',
      sourceFormat: 'csv',
      rowCount: 40,
      createdAccountCount: 40,
      asOfDate: '2026-01-01',
    });
    expect(res.body.import.fileDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(await tbNets(c, '2026-01-31')).toEqual(opening);

    const changed = balances(5);
    const periodic = await importCsv(c, csvOf(changed), {
      asOfDate: '2026-03-31',
      mode: 'Periodic',
    });
    expect(periodic.status, JSON.stringify(periodic.body)).toBe(201);
    expect(await tbNets(c, '2026-03-31')).toEqual(changed);
    // The opening figures still stand at their own date.
    expect(await tbNets(c, '2026-01-31')).toEqual(opening);
    expect(await balanceMismatches(t, org.id)).toEqual([]);

    expect(periodic.body.import.journalEntryIds).toEqual([periodic.body.import.journalEntryId]);
    const entry = await t.get(`${JE}/${periodic.body.import.journalEntryId}`, { token: owner.token });
    expect(entry.status).toBe(200);
    expect(entry.body.status).toBe('Posted');
    expect(entry.body.transactionDate).toBe('2026-03-31');

    const list = await t.get(`/api/v1/companies/${c.id}/trial-balance-imports`, { token: viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.imports.map((i: any) => i.mode)).toEqual(['Periodic', 'Opening']);

    // The same file again as Periodic: the books already match, no entry.
    const again = await importCsv(c, csvOf(changed), { asOfDate: '2026-03-31', mode: 'Periodic' });
    expect(again.status).toBe(201);
    expect(again.body.import.journalEntryId).toBeNull();
    expect(again.body.import.journalEntryIds).toEqual([]);
  });

  it('an error at row 17 names row 17 and its column; nothing is written', async () => {
    const c = await createCompany(t, org.id);
    const lines = csvOf(balances(3)).split('\r\n');
    // Line 0 is the header: row 17 is line 17.
    const cells = lines[17]!.split(',');
    cells[2] = '12,5x';
    lines[17] = cells.map((v) => (v.includes(',') ? `"${v}"` : v)).join(',');
    const res = await importCsv(c, lines.join('\r\n'), {
      organizationId: org.id,
      asOfDate: '2026-01-01',
      mode: 'Opening',
      createMissingAccounts: true,
      categoryRules: RULES,
    });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('TrialBalanceImportError');
    expect(res.body.errors).toEqual([{ row: 17, column: 'debit', message: expect.any(String) }]);
    expect(await count('accounts', c)).toBe(9);
    expect(await count('journal_entries', c)).toBe(0);
    expect(await count('trial_balance_imports', c)).toBe(0);

    // Unknown accounts without createMissingAccounts: every row named.
    const unknown = await importCsv(c, csvOf(balances(3)), { asOfDate: '2026-01-01', mode: 'Opening' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errorCount).toBe(40);
    expect(unknown.body.errors[16]).toMatchObject({ row: 17, column: 'accountNumber' });
  });

  it('a dry run answers the entry and the differences and writes nothing', async () => {
    const c = await createCompany(t, org.id);
    const b = new Map([
      ['1000', 150000n],
      ['2000', -50000n],
      ['3300', -100000n],
    ]);
    const csv = ['accountNumber,debit,credit', '1000,1500.00,', '2000,,500.00', '3300,,1000.00'].join('\n');
    const res = await importCsv(c, csv, {
      organizationId: org.id,
      asOfDate: '2026-02-28',
      mode: 'Periodic',
      dryRun: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.dryRun).toBe(true);
    expect(res.body.import).toBeNull();
    expect(res.body.entry.lines).toEqual([
      { accountId: c.accounts.cash, accountNumber: '1000', debit: usd('1500.00'), credit: null },
      { accountId: c.accounts.payable, accountNumber: '2000', debit: null, credit: usd('500.00') },
      { accountId: c.accounts.retainedEarnings, accountNumber: '3300', debit: null, credit: usd('1000.00') },
    ]);
    expect(res.body.differences[0]).toEqual({
      row: 1,
      accountId: c.accounts.cash,
      accountNumber: '1000',
      currentBalance: usd('0.00'),
      importedBalance: usd('1500.00'),
      difference: usd('1500.00'),
    });
    expect(await count('journal_entries', c)).toBe(0);
    expect(await count('trial_balance_imports', c)).toBe(0);
    expect(await tbNets(c, '2026-02-28')).toEqual(new Map());
    expect(b.size).toBe(3);
  });

  it('refuses an unbalanced file with its totals', async () => {
    const c = await createCompany(t, org.id);
    const csv = 'accountNumber,debit,credit\n1000,100.00,\n2000,,99.99\n';
    const res = await importCsv(c, csv, { organizationId: org.id, asOfDate: '2026-02-28', mode: 'Opening' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      _tag: 'UnbalancedTrialBalanceError',
      totalDebits: usd('100.00'),
      totalCredits: usd('99.99'),
      difference: usd('0.01'),
    });
  });

  it('reads a ;-separated file with a byte-order mark and differently cased headers', async () => {
    const c = await createCompany(t, org.id);
    const csv = '\uFEFFACCOUNTNUMBER;AccountName;DEBIT;Credit;Currency\n1000;Cash;1.250,00;;USD\n';
    const bad = await importCsv(c, csv, { organizationId: org.id, asOfDate: '2026-02-28', mode: 'Opening' });
    // A decimal comma is not a decimal number: named by row and column.
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ row: 1, column: 'debit' });
    const good =
      '\uFEFFACCOUNTNUMBER;AccountName;DEBIT;Credit;Currency\n1000;Cash;1250.00;;USD\n3300;RE;;1250.00;usd\n';
    const res = await importCsv(c, good, { organizationId: org.id, asOfDate: '2026-02-28', mode: 'Opening' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await tbNets(c, '2026-02-28')).toEqual(
      new Map([
        ['1000', 125000n],
        ['3300', -125000n],
      ]),
    );
    const missing = await importCsv(c, 'accountNumber,debit\n1000,1.00\n', {
      asOfDate: '2026-02-28',
      mode: 'Opening',
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ row: 0, column: 'credit', message: 'Missing column credit' }]);
  });

  it('imports JSON rows; the same upload with the same Idempotency-Key creates one entry', async () => {
    const c = await createCompany(t, org.id);
    const body = {
      organizationId: org.id,
      asOfDate: '2026-01-01',
      mode: 'Opening',
      createMissingAccounts: true,
      rows: [
        { accountNumber: '1000', debit: '800.00' },
        { accountNumber: '1500', accountName: 'Equipment', debit: '200.00', category: 'FixedAsset' },
        { accountNumber: '3300', credit: '1000.00' },
      ],
    };
    const headers = { 'idempotency-key': `tb-${c.id}` };
    const first = await t.post(`/api/v1/companies/${c.id}/trial-balance-imports`, {
      token: owner.token,
      body,
      headers,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.import.sourceFormat).toBe('json');
    const second = await t.post(`/api/v1/companies/${c.id}/trial-balance-imports`, {
      token: owner.token,
      body,
      headers,
    });
    expect(second.status).toBe(201);
    expect(second.body.import.id).toBe(first.body.import.id);
    expect(await count('trial_balance_imports', c)).toBe(1);
    expect(await count('journal_entries', c)).toBe(1);
    expect((await tbNets(c, '2026-01-01')).get('1500')).toBe(20000n);

    // Members may not import; other organizations' companies are not found.
    const forbidden = await t.post(`/api/v1/companies/${c.id}/trial-balance-imports`, {
      token: member.token,
      body,
    });
    expect(forbidden.status).toBe(403);
    const stranger = await t.user('stranger');
    const hidden = await t.post(`/api/v1/companies/${c.id}/trial-balance-imports`, {
      token: stranger.token,
      body: { ...body, organizationId: undefined },
    });
    expect(hidden.status).toBe(403);
  });
});

// ---------------------------------------------------------------------------------------------------

function entry(c: Company, amount: string, overrides: Record<string, unknown> = {}) {
  return {
    organizationId: c.organizationId,
    companyId: c.id,
    description: `Bulk ${amount}`,
    transactionDate: '2026-04-10',
    lines: [
      { accountId: c.accounts.cash, debitAmount: usd(amount) },
      { accountId: c.accounts.revenue, creditAmount: usd(amount) },
    ],
    ...overrides,
  };
}

describe('bulk journal entries', () => {
  /** The 201 schema's serializer: the bulk answer, written from the rows, must be its bytes. */
  const schemaBytes = SerializerSelector()({}, {})({
    schema: Type.Object({ entries: Type.Array(JournalEntry) }),
    method: 'POST',
    url: `${JE}/bulk`,
    httpStatus: '201',
  }) as (data: unknown) => string;
  const expectSchemaBytes = (res: { raw: { body: string }; headers: Record<string, unknown> }) => {
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.raw.body).toBe(schemaBytes(JSON.parse(res.raw.body)));
  };

  it('creates every entry with consecutive numbers in request order', async () => {
    const c = await createCompany(t, org.id);
    const res = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { entries: [entry(c, '10.00'), entry(c, '20.00'), entry(c, '30.00')] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.entries.map((e: any) => [e.entryNumber, e.totalDebits.value, e.status])).toEqual([
      ['JE-0001', '10.00', 'Draft'],
      ['JE-0002', '20.00', 'Draft'],
      ['JE-0003', '30.00', 'Draft'],
    ]);
    const one = await t.get(`${JE}/${res.body.entries[1].id}`, { token: viewer.token });
    expect(one.body).toEqual(res.body.entries[1]);
    expectSchemaBytes(res);
  });

  it('writes every field as a single create does (rates looked up or given, memos, dimensions)', async () => {
    const c = await createCompany(t, org.id);
    const rate = await t.post('/api/v1/exchange-rates', {
      token: owner.token,
      body: {
        organizationId: org.id,
        fromCurrency: 'GBP',
        toCurrency: 'USD',
        rate: '1.25',
        effectiveDate: '2026-04-01',
        rateType: 'Spot',
        source: 'Manual',
      },
    });
    expect(rate.status, JSON.stringify(rate.body)).toBe(201);
    const full = entry(c, '12.34', {
      description: 'All fields, "quoted", {braced}, back\\slash',
      referenceNumber: 'REF-1',
      documentDate: '2026-04-09',
      sourceDocumentRef: 'doc,1',
      lines: [
        {
          accountId: c.accounts.cash,
          debitAmount: { value: '10.00', currency: 'GBP' },
          memo: 'memo with "quotes", commas, {braces} and a back\\slash',
          dimensions: { costCenter: 'CC-1', region: 'a,b' },
        },
        {
          accountId: c.accounts.receivable,
          debitAmount: { value: '4.00', currency: 'EUR' },
          exchangeRate: '1.1',
        },
        { accountId: c.accounts.revenue, creditAmount: usd('16.90'), memo: 'NULL' },
      ],
    });
    const single = await t.post(JE, { token: member.token, body: full });
    expect(single.status, JSON.stringify(single.body)).toBe(201);
    const bulk = await t.post(`${JE}/bulk`, { token: member.token, body: { entries: [full] } });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    expectSchemaBytes(bulk);
    const read = await t.get(`${JE}/${bulk.body.entries[0].id}`, { token: viewer.token });
    expect(read.body).toEqual(bulk.body.entries[0]);
    const comparable = (e: any) => ({
      ...e,
      id: undefined,
      entryNumber: undefined,
      createdAt: undefined,
      updatedAt: undefined,
      lines: e.lines.map((l: any) => ({ ...l, id: undefined, journalEntryId: undefined })),
    });
    expect(comparable(read.body)).toEqual(comparable(single.body));
    expect(read.body.lines[0].exchangeRateId).toBe(rate.body.id);
  });

  it('stores functional-currency amounts of any precision as a single create does', async () => {
    const c = await createCompany(t, org.id);
    // Whole amounts, fewer fraction digits than the currency's, a given rate of 1, and amounts too
    // large for integers of cents (left to the decimal path).
    const shapes = [
      ['7', '0.5', '7.50'],
      ['12.30', '0.05', '12.35'],
      ['999999999999.99', '0.01', '1000000000000'],
      ['999999999999999.98', '0.01', '999999999999999.99'],
    ];
    for (const [a, b, total] of shapes) {
      const body = entry(c, total!, {
        lines: [
          { accountId: c.accounts.cash, debitAmount: usd(a!), exchangeRate: '1.000' },
          { accountId: c.accounts.receivable, debitAmount: usd(b!), memo: 'second ✓ 😀 «é»' },
          { accountId: c.accounts.revenue, creditAmount: usd(total!) },
        ],
      });
      const single = await t.post(JE, { token: member.token, body });
      const bulk = await t.post(`${JE}/bulk`, { token: member.token, body: { entries: [body] } });
      expect([single.status, bulk.status], JSON.stringify([single.body, bulk.body])).toEqual([201, 201]);
      expectSchemaBytes(bulk);
      const read = await t.get(`${JE}/${bulk.body.entries[0].id}`, { token: viewer.token });
      expect(read.body).toEqual(bulk.body.entries[0]);
      const comparable = (e: any) => ({
        ...e,
        id: undefined,
        entryNumber: undefined,
        createdAt: undefined,
        updatedAt: undefined,
        lines: e.lines.map((l: any) => ({ ...l, id: undefined, journalEntryId: undefined })),
      });
      expect(comparable(read.body)).toEqual(comparable(single.body));
    }
    const stored = await queryRows<{ debit: string | null; credit: string | null }>(
      t.database.db,
      sql`select debit_amount::text as debit, credit_amount::text as credit from journal_lines
          where company_id = ${c.id} order by journal_entry_id, line_number`,
    );
    // Each single create and its bulk twin store the same texts.
    for (let i = 0; i < stored.length; i += 6) {
      expect(stored.slice(i + 3, i + 6)).toEqual(stored.slice(i, i + 3));
    }
  });

  it('writes nothing when one entry is refused, naming its index', async () => {
    const c = await createCompany(t, org.id);
    const bad = entry(c, '5.00', {
      lines: [
        { accountId: c.accounts.inactive, debitAmount: usd('5.00') },
        { accountId: c.accounts.revenue, creditAmount: usd('5.00') },
      ],
    });
    const res = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { entries: [entry(c, '1.00'), entry(c, '2.00'), bad, entry(c, '3.00')] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ _tag: 'InvalidJournalLineAccountError', entryIndex: 2, lineNumber: 1 });
    expect(await count('journal_entries', c)).toBe(0);
    expect(await count('journal_lines', c)).toBe(0);

    const unbalanced = entry(c, '1.00', {
      lines: [
        { accountId: c.accounts.cash, debitAmount: usd('1.00') },
        { accountId: c.accounts.revenue, creditAmount: usd('2.00') },
      ],
    });
    const r2 = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { entries: [entry(c, '1.00'), unbalanced] },
    });
    expect(r2.status).toBe(400);
    expect(r2.body).toMatchObject({ _tag: 'UnbalancedJournalEntryError', entryIndex: 1 });

    const shape = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { entries: [entry(c, '1.00'), { ...entry(c, '1.00'), transactionDate: 'x' }] },
    });
    expect(shape.status).toBe(400);
    expect(shape.body.issues[0].path).toBe('/entries/1/transactionDate');
    expect(await count('journal_entries', c)).toBe(0);

    // Numbers stay gap-free: the next entry is JE-0001.
    const next = await t.post(JE, { token: member.token, body: entry(c, '4.00') });
    expect(next.body.entryNumber).toBe('JE-0001');
  });

  it('refuses a line without a Spot rate, after the refusals of the lines before it', async () => {
    const c = await createCompany(t, org.id);
    const chf = (value: string) => ({ value, currency: 'CHF' });
    const foreign = (rateOfFirstLine?: string) =>
      entry(c, '3.00', {
        lines: [
          { accountId: c.accounts.cash, debitAmount: usd('3.00'), exchangeRate: rateOfFirstLine ?? null },
          { accountId: c.accounts.receivable, debitAmount: chf('3.00') },
          { accountId: c.accounts.revenue, creditAmount: usd('6.00') },
        ],
      });
    const missing = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { entries: [entry(c, '1.00'), foreign()] },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      _tag: 'ExchangeRateNotFoundError',
      entryIndex: 1,
      fromCurrency: 'CHF',
      toCurrency: 'USD',
      date: '2026-04-10',
    });
    // A functional-currency line with a rate other than 1 comes first: its refusal is the answer.
    const rateFirst = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { entries: [entry(c, '1.00'), entry(c, '2.00'), foreign('2')] },
    });
    expect(rateFirst.status).toBe(400);
    expect(rateFirst.body.issues[0].path).toBe('/entries/2/lines/0/exchangeRate');
    expect(await count('journal_entries', c)).toBe(0);
  });

  it('posts immediately where approval is not required, and updates the balances', async () => {
    const org2 = await t.org(owner, { settings: { requireApproval: false } });
    const c = await createCompany(t, org2.id);
    const res = await t.post(`${JE}/bulk`, {
      token: owner.token,
      body: { postImmediately: true, entries: [entry(c, '10.00'), entry(c, '15.50')] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.entries.every((e: any) => e.status === 'Posted' && e.postedBy === owner.id)).toBe(true);
    expectSchemaBytes(res);
    expect(await balanceMismatches(t, org2.id)).toEqual([]);
    const tb = await t.get('/api/v1/reports/trial-balance', {
      token: owner.token,
      query: { organizationId: org2.id, companyId: c.id, asOfDate: '2026-04-30' },
    });
    expect(tb.body.totalDebits).toEqual(usd('25.50'));

    // Lines in a foreign currency also enter the balances per transaction currency that
    // revaluation reads (two entries on the same account and day: one balance row, summed).
    const eur = (value: string) => ({ value, currency: 'EUR' });
    const foreign = (amount: string) =>
      entry(c, amount, {
        lines: [
          { accountId: c.accounts.cash, debitAmount: eur(amount), exchangeRate: '1.1' },
          { accountId: c.accounts.revenue, creditAmount: eur(amount), exchangeRate: '1.1' },
        ],
      });
    const fx = await t.post(`${JE}/bulk`, {
      token: owner.token,
      body: { postImmediately: true, entries: [foreign('100.00'), foreign('50.00')] },
    });
    expect(fx.status, JSON.stringify(fx.body)).toBe(201);
    expect(await currencyBalanceMismatches(t, org2.id)).toEqual([]);
    const [cash] = await queryRows<{ foreign: string; functional: string }>(
      t.database.db,
      sql`select round(sum(foreign_net), 2)::text as foreign, round(sum(functional_net), 2)::text as functional
          from account_currency_balances
          where organization_id = ${org2.id} and account_id = ${c.accounts.cash} and currency = 'EUR'`,
    );
    expect(cash).toEqual({ foreign: '150.00', functional: '165.00' });

    // Where approval is required, nothing is posted.
    const c1 = await createCompany(t, org.id);
    const refused = await t.post(`${JE}/bulk`, {
      token: owner.token,
      body: { postImmediately: true, entries: [entry(c1, '1.00')] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ _tag: 'InvalidStatusTransitionError', entryIndex: 0 });
    // Members may create but not post.
    const member403 = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { postImmediately: true, entries: [entry(c1, '1.00')] },
    });
    expect(member403.status).toBe(403);
  });
});

// ---------------------------------------------------------------------------------------------------

async function readXlsx(buf: Buffer) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf as never);
  const sheet = wb.worksheets[0]!;
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    rows.push((row.values as unknown[]).slice(1));
  });
  return { sheet, rows };
}

describe('exports', () => {
  let c: Company;

  beforeAll(async () => {
    c = await createCompany(t, org.id);
    const csv = [
      'accountNumber,debit,credit',
      '1000,1500.25,',
      '1100,300.00,',
      '2000,,500.00',
      '3300,,1300.25',
    ].join('\n');
    expect(
      (await importCsv(c, csv, { organizationId: org.id, asOfDate: '2026-01-01', mode: 'Opening' })).status,
    ).toBe(201);
    const org2posted = await t.post(`${JE}/bulk`, {
      token: member.token,
      body: { entries: [entry(c, '99.99'), entry(c, '0.01', { transactionDate: '2026-02-03' })] },
    });
    expect(org2posted.status).toBe(201);
    await t.put(`/api/v1/organizations/${org.id}`, {
      token: owner.token,
      body: { settings: { requireApproval: false } },
    });
    for (const e of org2posted.body.entries) {
      expect((await t.post(`${JE}/${e.id}/post`, { token: owner.token, body: {} })).status).toBe(200);
    }
    await t.put(`/api/v1/organizations/${org.id}`, {
      token: owner.token,
      body: { settings: { requireApproval: true } },
    });
  });

  const reports: [string, Record<string, string>, string][] = [
    ['trial-balance', { asOfDate: '2026-12-31' }, '2026-12-31'],
    ['balance-sheet', { asOfDate: '2026-12-31' }, '2026-12-31'],
    ['income-statement', { periodStartDate: '2026-01-01', periodEndDate: '2026-12-31' }, '2026-12-31'],
    ['cash-flow', { periodStartDate: '2026-01-01', periodEndDate: '2026-12-31' }, '2026-12-31'],
    ['equity-statement', { periodStartDate: '2026-01-01', periodEndDate: '2026-12-31' }, '2026-12-31'],
  ];

  /** Every amount of a JSON report, in document order. */
  function amounts(v: unknown, out: string[] = []): string[] {
    if (Array.isArray(v)) v.forEach((x) => amounts(x, out));
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.value === 'string' && typeof o.currency === 'string') out.push(o.value);
      else Object.values(o).forEach((x) => amounts(x, out));
    }
    return out;
  }

  for (const [name, dates, date] of reports) {
    it(`${name}: the CSV and XLSX files hold the JSON figures`, async () => {
      const query = { organizationId: org.id, companyId: c.id, ...dates };
      const json = await t.get(`/api/v1/reports/${name}`, { token: viewer.token, query });
      expect(json.status).toBe(200);
      const expected = amounts(json.body).filter((v) => v !== '0.00');

      const csv = await t.get(`/api/v1/reports/${name}`, {
        token: viewer.token,
        query: { ...query, format: 'csv' },
      });
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.headers['content-disposition']).toContain(`_${name}_${date}.csv`);
      const csvRows = parse(csv.raw.body) as string[][];
      const csvAmounts = csvRows
        .slice(1)
        .flat()
        .filter((v) => /^-?\d+\.\d{2}$/.test(v) && v !== '0.00');

      const xlsx = await t.req('GET', `/api/v1/reports/${name}`, {
        token: viewer.token,
        query,
        headers: { accept: XLSX },
      });
      expect(xlsx.status).toBe(200);
      expect(xlsx.headers['content-type']).toBe(XLSX);
      expect(xlsx.headers['content-disposition']).toMatch(
        new RegExp(`^attachment; filename=".+_${name}_${date}\\.xlsx"$`),
      );
      const { sheet, rows } = await readXlsx(xlsx.raw.rawPayload);
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      const numbers: number[] = [];
      rows.slice(1).forEach((r, i) =>
        r.forEach((cell, j) => {
          if (typeof cell === 'number' && cell !== 0) {
            numbers.push(cell);
            expect(sheet.getRow(i + 2).getCell(j + 1).numFmt).toBe('#,##0.00;-#,##0.00');
          }
        }),
      );
      // Figure by figure: every non-zero amount of the files is one of the JSON's, and each JSON
      // line amount appears in the files.
      const jsonSet = new Set(expected);
      for (const v of csvAmounts) expect(jsonSet.has(v), `csv ${v}`).toBe(true);
      for (const n of numbers) expect(jsonSet.has(n.toFixed(2)), `xlsx ${n}`).toBe(true);
      expect(csvAmounts.map((v) => Number(v))).toEqual(numbers);
    });
  }

  it('trial balance: rows and totals match the JSON account by account', async () => {
    const query = { organizationId: org.id, companyId: c.id, asOfDate: '2026-12-31' };
    const json = (await t.get('/api/v1/reports/trial-balance', { token: viewer.token, query })).body;
    const xlsx = await t.get('/api/v1/reports/trial-balance', {
      token: viewer.token,
      query: { ...query, format: 'xlsx' },
    });
    const { rows } = await readXlsx(xlsx.raw.rawPayload);
    expect(rows[0]).toEqual([
      'Account number',
      'Account name',
      'Account type',
      'Account category',
      'Debit',
      'Credit',
      'Row type',
    ]);
    const body = rows.slice(1, -1);
    expect(body.length).toBe(json.lineItems.length);
    json.lineItems.forEach((l: any, i: number) => {
      expect(body[i]![0]).toBe(l.accountNumber);
      expect(body[i]![4] ?? 0).toBe(Number(l.debitBalance.value));
      expect(body[i]![5] ?? 0).toBe(Number(l.creditBalance.value));
    });
    const total = rows[rows.length - 1]!;
    expect(total[4]).toBe(Number(json.totalDebits.value));
    expect(total[5]).toBe(Number(json.totalCredits.value));
    expect(total[6]).toBe('Total');
  });

  it('the journal list exports every line as CSV (streamed) and XLSX; accountId filters the list', async () => {
    const all = await t.get(JE, { token: viewer.token, query: { organizationId: org.id, companyId: c.id } });
    expect(all.body.total).toBe(3);
    const byAccount = await t.get(JE, {
      token: viewer.token,
      query: { organizationId: org.id, companyId: c.id, accountId: c.accounts.receivable },
    });
    expect(byAccount.status).toBe(200);
    expect(byAccount.body.total).toBe(1);
    expect(byAccount.body.entries[0].lines.some((l: any) => l.accountId === c.accounts.receivable)).toBe(
      true,
    );
    const missing = await t.get(JE, {
      token: viewer.token,
      query: { organizationId: org.id, accountId: '00000000-0000-7000-8000-000000000000' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body._tag).toBe('AccountNotFoundError');

    const csv = await t.req('GET', JE, {
      token: viewer.token,
      query: { organizationId: org.id, companyId: c.id },
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toMatch(
      /^attachment; filename="journal-entries_\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const rows = parse(csv.raw.body) as string[][];
    expect(rows[0]![0]).toBe('Entry number');
    const lineCount = (all.body.entries as any[]).reduce((n, e) => n + e.lines.length, 0);
    expect(rows.length - 1).toBe(lineCount);
    // List order: newest first.
    expect(rows[1]![0]).toBe(all.body.entries[0].entryNumber);

    const xlsx = await t.get(JE, {
      token: viewer.token,
      query: { organizationId: org.id, companyId: c.id, format: 'xlsx' },
    });
    expect(xlsx.status).toBe(200);
    const book = await readXlsx(xlsx.raw.rawPayload);
    expect(book.rows.length - 1).toBe(lineCount);
    const debitCol = 13;
    const jsonDebits = (all.body.entries as any[]).flatMap((e) =>
      e.lines.map((l: any) => l.debitAmount?.value ?? null),
    );
    expect(
      book.rows
        .slice(1)
        .map((r) =>
          r[debitCol] === undefined || r[debitCol] === null ? null : (r[debitCol] as number).toFixed(2),
        ),
    ).toEqual(jsonDebits);
  });

  it('general ledger: lines with counterparts and running balances, paginated, exportable', async () => {
    const query = {
      organizationId: org.id,
      companyId: c.id,
      accountId: c.accounts.cash,
      startDate: '2026-02-01',
      endDate: '2026-12-31',
    };
    const res = await t.get('/api/v1/reports/general-ledger', { token: viewer.token, query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.accounts).toEqual([
      expect.objectContaining({
        accountNumber: '1000',
        openingBalance: usd('1500.25'),
        totalDebits: usd('100.00'),
        totalCredits: usd('0.00'),
        closingBalance: usd('1600.25'),
      }),
    ]);
    expect(
      res.body.lines.map((l: any) => [
        l.transactionDate,
        l.debit.value,
        l.runningBalance.value,
        l.counterpartAccounts,
      ]),
    ).toEqual([
      ['2026-02-03', '0.01', '1500.26', ['4000']],
      ['2026-04-10', '99.99', '1600.25', ['4000']],
    ]);
    const page2 = await t.get('/api/v1/reports/general-ledger', {
      token: viewer.token,
      query: { ...query, limit: 1, offset: 1 },
    });
    expect(page2.body.total).toBe(2);
    expect(page2.body.lines.map((l: any) => l.runningBalance.value)).toEqual(['1600.25']);

    const range = await t.get('/api/v1/reports/general-ledger', {
      token: viewer.token,
      query: {
        organizationId: org.id,
        companyId: c.id,
        accountNumberFrom: '1000',
        accountNumberTo: '2000',
        startDate: '2026-01-01',
        endDate: '2026-12-31',
      },
    });
    expect(range.body.accounts.map((a: any) => a.accountNumber)).toEqual(['1000', '1100', '2000']);

    const xlsx = await t.get('/api/v1/reports/general-ledger', {
      token: viewer.token,
      query: { ...query, format: 'xlsx' },
    });
    expect(xlsx.status).toBe(200);
    const { rows } = await readXlsx(xlsx.raw.rawPayload);
    expect(rows.slice(1).map((r) => r[7])).toEqual([undefined, 1500.25, 1500.26, 1600.25, 1600.25]);

    const bad = await t.get('/api/v1/reports/general-ledger', {
      token: viewer.token,
      query: { ...query, accountNumberFrom: '1000' },
    });
    expect(bad.status).toBe(400);
    const other = await t.get('/api/v1/reports/general-ledger', {
      token: viewer.token,
      query: { ...query, accountId: '00000000-0000-7000-8000-000000000000' },
    });
    expect(other.status).toBe(404);
    expect(other.body._tag).toBe('AccountNotFoundError');
  });
});
