/**
 * What the crash test and the failover test share: the real server (the production bundle that
 * `npm start` runs) as a child process, HTTP calls to it, a tenant with a company to post in, the
 * bodies of the posting load, and the consistency checks of a ledger straight on its database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../src/db/client.ts';
import { startArgs } from './start-command.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** mulberry32: reproducible sequences (kill times, amounts) for a given seed. */
export function seededRandom(initial: number): () => number {
  let seed = initial;
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------
// Server process

export interface Server {
  child: ChildProcess;
  port: number;
  output: string[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `dist/server.mjs` (built beforehand) on a free port and waits until it is healthy. */
export async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, startArgs(ROOT), {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'error', WORKERS: '1', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (d) => output.push(String(d)));
  child.stderr?.on('data', (d) => output.push(String(d)));
  child.once('exit', (code, signal) => output.push(`\n[server exited: code ${code}, signal ${signal}]\n`));
  const started = Date.now();
  while (Date.now() - started < 90_000) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output.join('')}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.status === 200) return { child, port, output };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy: ${output.join('')}`);
}

export async function kill(server: Server, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill(signal);
  await exited;
}

export interface ApiResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes, checked where used
  body: any;
  headers: Headers;
}

export async function api(
  port: number,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ApiResult> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.headers ?? {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    ...(options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

// ---------------------------------------------------------------------------------------------------
// Tenant and load

export interface Tenant {
  token: string;
  orgId: string;
  companyId: string;
  cash: string;
  revenue: string;
}

/** A new user with an organization (no approval step) and one company with its chart of accounts. */
export async function setupTenant(port: number, name: string, random: () => number): Promise<Tenant> {
  const email = `${name.toLowerCase()}-${Date.now()}-${Math.floor(random() * 1e9)}@example.com`;
  const password = 'Load-test-1';
  const reg = await api(port, 'POST', '/api/auth/register', {
    body: { email, password, displayName: name },
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await api(port, 'POST', '/api/auth/login', { body: { email, password } });
  const token = login.body.token as string;
  const org = await api(port, 'POST', '/api/v1/organizations', {
    token,
    body: { name: `${name} ${email}`, reportingCurrency: 'USD', settings: { requireApproval: false } },
  });
  if (org.status !== 201) throw new Error(`org: ${org.status} ${JSON.stringify(org.body)}`);
  const co = await api(port, 'POST', '/api/v1/companies', {
    token,
    body: {
      organizationId: org.body.id,
      name: `${name} Co`,
      legalName: `${name} Co Inc.`,
      jurisdiction: 'US',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    },
  });
  if (co.status !== 201) throw new Error(`company: ${co.status} ${JSON.stringify(co.body)}`);
  const accounts = await api(
    port,
    'GET',
    `/api/v1/accounts?organizationId=${org.body.id}&companyId=${co.body.id}&limit=100`,
    { token },
  );
  const byNumber = new Map<string, string>(
    accounts.body.accounts.map((a: { accountNumber: string; id: string }) => [a.accountNumber, a.id]),
  );
  return {
    token,
    orgId: org.body.id,
    companyId: co.body.id,
    cash: byNumber.get('1010')!,
    revenue: byNumber.get('4000')!,
  };
}

/** A balanced two-line entry (cash against revenue) with a random amount. */
export function entryBody(tenant: Tenant, description: string, random: () => number) {
  const cents = 100 + Math.floor(random() * 100_000);
  const value = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return {
    organizationId: tenant.orgId,
    companyId: tenant.companyId,
    description,
    transactionDate: '2026-06-15',
    lines: [
      { accountId: tenant.cash, debitAmount: { value, currency: 'USD' } },
      { accountId: tenant.revenue, creditAmount: { value, currency: 'USD' } },
    ],
  };
}

/** Entries whose writes the server acknowledged. */
export interface Acks {
  created: Set<string>;
  posted: Set<string>;
  reversed: Set<string>;
}

// ---------------------------------------------------------------------------------------------------
// Verification (straight on the database)

/**
 * The ledger of the tenant's organization is consistent and holds every acknowledged write: entries
 * fully posted or not at all, balances equal to the posted lines, one reversal per reversed entry,
 * every company's trial balance nets to zero. Returns the problems found (none when all is well).
 */
export async function verifyLedger(database: Database, tenant: Tenant, acks: Acks): Promise<string[]> {
  const db = database.db;
  const org = tenant.orgId;
  const problems: string[] = [];
  const mismatches = await queryRows(
    db,
    sql`with lines as (
          select l.account_id, e.transaction_date as d, e.fiscal_year as y, e.fiscal_period as p,
                 sum(coalesce(l.functional_debit_amount, 0)) as debit,
                 sum(coalesce(l.functional_credit_amount, 0)) as credit
          from journal_entries e
          join journal_lines l on l.organization_id = e.organization_id and l.journal_entry_id = e.id
          where e.organization_id = ${org} and e.status in ('Posted', 'Reversed')
          group by 1, 2, 3, 4
        ), stored as (
          select account_id, balance_date as d, fiscal_year as y, fiscal_period as p,
                 sum(debit_total) as debit, sum(credit_total) as credit
          from account_balances where organization_id = ${org} group by 1, 2, 3, 4
        )
        select coalesce(s.account_id, l.account_id) as account_id, s.debit::text as stored_debit,
               l.debit::text as line_debit, s.credit::text as stored_credit, l.credit::text as line_credit
        from stored s full join lines l on l.account_id = s.account_id and l.d = s.d and l.y = s.y and l.p = s.p
        where coalesce(s.debit, 0) <> coalesce(l.debit, 0) or coalesce(s.credit, 0) <> coalesce(l.credit, 0)`,
  );
  if (mismatches.length > 0)
    problems.push(`balances differ from posted lines: ${JSON.stringify(mismatches)}`);
  const lineless = await queryRows<{ id: string }>(
    db,
    sql`select e.id from journal_entries e
        left join journal_lines l on l.organization_id = e.organization_id and l.journal_entry_id = e.id
        where e.organization_id = ${org} group by e.id having count(l.id) < 2`,
  );
  if (lineless.length > 0)
    problems.push(`entries without their lines: ${lineless.map((r) => r.id).join(', ')}`);
  const halfPosted = await queryRows<{ id: string }>(
    db,
    sql`select id from journal_entries where organization_id = ${org}
        and ((status in ('Posted', 'Reversed')) <> (posted_at is not null))`,
  );
  if (halfPosted.length > 0)
    problems.push(`status and posting data disagree: ${halfPosted.map((r) => r.id).join(', ')}`);
  const reversals = await queryRows<{ id: string }>(
    db,
    sql`select e.id from journal_entries e
        left join journal_entries r on r.organization_id = e.organization_id and r.reversed_entry_id = e.id
                                    and r.is_reversing
        where e.organization_id = ${org} and not e.is_reversing
        group by e.id, e.status having (e.status = 'Reversed') <> (count(r.id) = 1) or count(r.id) > 1`,
  );
  if (reversals.length > 0) problems.push(`reversal links broken: ${reversals.map((r) => r.id).join(', ')}`);
  const nets = await queryRows<{ net: string }>(
    db,
    sql`select (sum(debit_total) - sum(credit_total))::text as net from account_balances
        where organization_id = ${org} group by company_id`,
  );
  for (const n of nets)
    if (Number(n.net) !== 0) problems.push(`trial balance does not net to zero: ${n.net}`);
  for (const lost of await lostAcks(database, tenant, acks)) problems.push(lost);
  return problems;
}

/** Acknowledged writes missing from the database, one line each. */
export async function lostAcks(database: Database, tenant: Tenant, acks: Acks): Promise<string[]> {
  const statuses = new Map(
    (
      await queryRows<{ id: string; status: string }>(
        database.db,
        sql`select id, status from journal_entries where organization_id = ${tenant.orgId}`,
      )
    ).map((r) => [r.id, r.status]),
  );
  const lost: string[] = [];
  for (const id of acks.created) if (!statuses.has(id)) lost.push(`acknowledged create lost: ${id}`);
  for (const id of acks.posted)
    if (!['Posted', 'Reversed'].includes(statuses.get(id) ?? '')) lost.push(`acknowledged post lost: ${id}`);
  for (const id of acks.reversed)
    if (statuses.get(id) !== 'Reversed') lost.push(`acknowledged reversal lost: ${id}`);
  return lost;
}

/** Descriptions used by more than one original (non-reversing) entry: a create executed twice. */
export async function duplicateDescriptions(port: number, tenant: Tenant): Promise<string[]> {
  const seen = new Map<string, number>();
  for (let offset = 0; ; offset += 100) {
    const page = await api(
      port,
      'GET',
      `/api/v1/journal-entries?organizationId=${tenant.orgId}&limit=100&offset=${offset}`,
      { token: tenant.token },
    );
    if (page.status !== 200) throw new Error(`list: ${page.status} ${JSON.stringify(page.body)}`);
    for (const e of page.body.entries as Array<{ description: string; isReversing: boolean }>) {
      if (e.isReversing) continue;
      seen.set(e.description, (seen.get(e.description) ?? 0) + 1);
    }
    if (offset + 100 >= page.body.total) break;
  }
  return [...seen.entries()].filter(([, n]) => n > 1).map(([d]) => d);
}
