/**
 * The `groupbook` command-line tool (clients/cli) against a live in-process server: log in, list
 * organizations and companies, post journals from CSV and JSON files, run a consolidation and print
 * its balance sheet, export a report; usage and API errors; `--help` through the package's bin.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../clients/cli/main.ts';
import { createTestContext, PASSWORD, type TestContext, type TestUser } from '../helpers/app.ts';

let t: TestContext;
let baseUrl: string;
let dir: string;
let owner: TestUser;
let orgId: string;
let orgName: string;
let parentId: string;
let subId: string;

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (s) => (out += s),
    err: (s) => (err += s),
    env: { GROUPBOOK_CONFIG: join(dir, 'session.json') },
  });
  return { code, out, err };
}

async function company(name: string): Promise<string> {
  const res = await t.post('/api/v1/companies', {
    token: owner.token,
    body: {
      organizationId: orgId,
      name,
      legalName: `${name} Inc.`,
      jurisdiction: 'US-DE',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  t = await createTestContext();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'groupbook-cli-'));
  owner = await t.user('cli');
  const org = await t.org(owner, { settings: { requireApproval: false } });
  orgId = org.id;
  orgName = org.name;
  parentId = await company('CLI Parent');
  subId = await company('CLI Subsidiary');
}, 60_000);
afterAll(async () => t?.close());

describe('groupbook CLI', () => {
  it('--help lists the commands and explains each one', async () => {
    const top = await cli('--help');
    expect(top.code).toBe(0);
    for (const command of ['login', 'orgs list', 'companies list', 'journal post', 'consolidate', 'report'])
      expect(top.out).toContain(`groupbook ${command}`);
    const journal = await cli('journal', '--help');
    expect(journal.code).toBe(0);
    expect(journal.out).toContain(
      'CSV: a header row with the columns date, description, account, debit, credit',
    );
  });

  it('logs in, lists organizations and companies', async () => {
    const login = await cli('login', '--email', owner.email, '--password', PASSWORD, '--url', baseUrl);
    expect(login.code, login.err).toBe(0);
    expect(login.out).toContain(`as ${owner.email}`);
    const orgs = await cli('orgs', 'list');
    expect(orgs.code, orgs.err).toBe(0);
    expect(orgs.out).toContain(orgId);
    expect(orgs.out).toContain(orgName);
    const companies = await cli('companies', 'list', '--org', orgId);
    expect(companies.out).toContain('CLI Parent');
    expect(companies.out).toContain('CLI Subsidiary');
    const json = await cli('companies', 'list', '--org', orgId, '--json');
    expect(
      JSON.parse(json.out)
        .map((c: { id: string }) => c.id)
        .sort(),
    ).toEqual([parentId, subId].sort());
  });

  it('posts a CSV journal and a JSON one, runs a consolidation and prints the balance sheet', async () => {
    const csv = join(dir, 'parent.csv');
    writeFileSync(
      csv,
      [
        'date,description,account,debit,credit,memo',
        '2026-01-02,Share capital,1010,500000.00,,Cash received',
        '2026-01-02,Share capital,3000,,500000.00,',
        '2026-01-20,January sales,1100,120000.00,,',
        '2026-01-20,January sales,4000,,120000.00,',
      ].join('\n'),
    );
    const posted = await cli('journal', 'post', '--org', orgId, '--company', parentId, '--file', csv);
    expect(posted.code, posted.err).toBe(0);
    expect(posted.out.match(/Posted/g)).toHaveLength(2);
    const json = join(dir, 'sub.json');
    writeFileSync(
      json,
      JSON.stringify([
        {
          transactionDate: '2026-01-02',
          description: 'Share capital',
          lines: [
            { accountNumber: '1010', debitAmount: { value: '200000.00', currency: 'USD' } },
            { accountNumber: '3000', creditAmount: { value: '200000.00', currency: 'USD' } },
          ],
        },
        {
          transactionDate: '2026-01-25',
          description: 'January sales',
          lines: [
            { accountNumber: '1100', debitAmount: { value: '80000.00', currency: 'USD' } },
            { accountNumber: '4000', creditAmount: { value: '80000.00', currency: 'USD' } },
          ],
        },
      ]),
    );
    const postedJson = await cli('journal', 'post', '--org', orgId, '--company', subId, '--file', json);
    expect(postedJson.code, postedJson.err).toBe(0);
    expect(postedJson.out.match(/Posted/g)).toHaveLength(2);

    const group = await t.post('/api/v1/consolidation/groups', {
      token: owner.token,
      body: {
        organizationId: orgId,
        name: 'CLI group',
        reportingCurrency: 'USD',
        consolidationMethod: 'FullConsolidation',
        parentCompanyId: parentId,
        members: [{ companyId: subId, ownershipPercentage: '80', consolidationMethod: 'FullConsolidation' }],
      },
    });
    expect(group.status).toBe(201);
    const run = await cli('consolidate', '--group', group.body.id, '--year', '2026', '--period', '1');
    expect(run.code, run.err).toBe(0);
    const runId = /Consolidation run ([0-9a-f-]{36})/.exec(run.out)![1]!;
    const sheet = await t.get(`/api/v1/consolidation/runs/${runId}/reports/balance-sheet`, {
      token: owner.token,
    });
    expect(sheet.body.isBalanced).toBe(true);
    // The printed table carries the service's figures: 620,000 + 280,000 of assets.
    expect(sheet.body.totalAssets.value).toBe('900000.00');
    expect(run.out).toContain('Balance sheet as of 2026-01-31 (USD)');
    expect(run.out).toMatch(/Total assets\s+900000\.00/);
    expect(run.out).toMatch(
      new RegExp(
        `Total liabilities and equity\\s+${sheet.body.totalLiabilitiesAndEquity.value.replace('.', '\\.')}`,
      ),
    );
    expect(run.out).toMatch(/Is balanced\s+yes/);
    expect(run.out).toMatch(/1010 [^\n]*\s+700000\.00/);
  }, 60_000);

  it('exports a report as CSV to a file and as JSON', async () => {
    const out = join(dir, 'tb.csv');
    const res = await cli(
      'report',
      'trial-balance',
      '--org',
      orgId,
      '--company',
      parentId,
      '--as-of',
      '2026-01-31',
      '--format',
      'csv',
      '--out',
      out,
    );
    expect(res.code, res.err).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('Account number,Account name,Debit balance,Credit balance');
    expect(lines).toContain('Total,,620000.00,620000.00');
    const income = await cli(
      'report',
      'income-statement',
      '--org',
      orgId,
      '--company',
      parentId,
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-31',
      '--format',
      'json',
    );
    expect(JSON.parse(income.out).netIncome).toEqual({ value: '120000.00', currency: 'USD' });
  });

  it('usage errors exit 2, API errors exit 1 with the error body', async () => {
    const missing = await cli('companies', 'list');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--org is required');
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    const notFound = await cli('companies', 'list', '--org', '00000000-0000-4000-8000-000000000000');
    expect(notFound.code).toBe(1);
    expect(notFound.err).toContain('OrganizationNotFoundError');
  });

  it('runs as `groupbook` through the package bin', () => {
    const bin = JSON.parse(readFileSync('package.json', 'utf8')).bin.groupbook;
    const out = execFileSync(process.execPath, [bin, 'report', '--help'], { encoding: 'utf8' });
    expect(out).toContain('Usage: groupbook report');
  });
});
