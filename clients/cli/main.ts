/**
 * `groupbook`: the command-line tool for the jobs people script against a Groupbook service, built on
 * the typed client (clients/typescript). `groupbook --help` lists the commands; `groupbook <command>
 * --help` explains one. The session (service address and token) is kept in a small JSON file
 * (`GROUPBOOK_CONFIG`, default `~/.config/groupbook/session.json`); `GROUPBOOK_URL` and
 * `GROUPBOOK_TOKEN` override it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { createGroupbookClient, type GroupbookClient, GroupbookError, unwrap } from '../typescript/index.ts';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

const defaultIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

class UsageError extends Error {}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- report bodies are walked generically

interface Session {
  url: string;
  token: string | null;
  email?: string;
}

interface Command {
  usage: string;
  help: string;
  options: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  run(
    args: { values: Record<string, string | boolean | undefined>; positionals: string[] },
    c: Context,
  ): Promise<void>;
}

interface Context {
  io: Io;
  session: Session;
  client: GroupbookClient;
  save(session: Session): void;
}

const REPORTS = [
  'trial-balance',
  'balance-sheet',
  'income-statement',
  'cash-flow',
  'equity-statement',
] as const;
type ReportName = (typeof REPORTS)[number];

const COMMANDS: Record<string, Command> = {
  login: {
    usage: 'groupbook login --email <e-mail> [--password <password>] [--url <service>]',
    help:
      'Logs in and keeps the session token for the next commands. The password can also come from\n' +
      'GROUPBOOK_PASSWORD. --url sets the service address (default http://127.0.0.1:3000).',
    options: { email: { type: 'string' }, password: { type: 'string' }, url: { type: 'string' } },
    async run({ values }, c) {
      const email = required(values, 'email');
      const password = (values.password as string | undefined) ?? c.io.env.GROUPBOOK_PASSWORD;
      if (!password) throw new UsageError('--password (or GROUPBOOK_PASSWORD) is required');
      const url = (values.url as string | undefined) ?? c.session.url;
      const client = createGroupbookClient({ baseUrl: url });
      const session = await unwrap(client.POST('/api/auth/login', { body: { email, password } }));
      c.save({ url, token: session.token, email });
      c.io.out(`Logged in to ${url} as ${session.user.email} (session valid until ${session.expiresAt})\n`);
    },
  },
  logout: {
    usage: 'groupbook logout',
    help: 'Ends the session on the service and forgets the token.',
    options: {},
    async run(_args, c) {
      if (c.session.token) await unwrap(c.client.POST('/api/auth/logout', {}));
      c.save({ url: c.session.url, token: null });
      c.io.out('Logged out\n');
    },
  },
  orgs: {
    usage: 'groupbook orgs list [--json]',
    help: 'Lists the organizations you belong to, with your role.',
    options: { json: { type: 'boolean' } },
    async run({ values, positionals }, c) {
      expectSub(positionals, 'list');
      const rows: Json[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await unwrap(
          c.client.GET('/api/v1/organizations', { params: { query: { limit: 100, offset } } }),
        );
        rows.push(...page.organizations);
        if (offset + 100 >= page.total) break;
      }
      if (values.json) return c.io.out(`${JSON.stringify(rows, null, 2)}\n`);
      c.io.out(
        table(
          ['ID', 'Name', 'Currency'],
          rows.map((o) => [o.id, o.name, o.reportingCurrency]),
        ),
      );
    },
  },
  companies: {
    usage: 'groupbook companies list --org <organization id> [--json]',
    help: 'Lists the companies of an organization.',
    options: { org: { type: 'string' }, json: { type: 'boolean' } },
    async run({ values, positionals }, c) {
      expectSub(positionals, 'list');
      const organizationId = required(values, 'org');
      const rows: Json[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await unwrap(
          c.client.GET('/api/v1/companies', { params: { query: { organizationId, limit: 100, offset } } }),
        );
        rows.push(...page.companies);
        if (offset + 100 >= page.total) break;
      }
      if (values.json) return c.io.out(`${JSON.stringify(rows, null, 2)}\n`);
      c.io.out(
        table(
          ['ID', 'Name', 'Currency', 'Jurisdiction', 'Active'],
          rows.map((co) => [
            co.id,
            co.name,
            co.functionalCurrency,
            co.jurisdiction,
            co.isActive ? 'yes' : 'no',
          ]),
        ),
      );
    },
  },
  journal: {
    usage: 'groupbook journal post --org <id> --company <id> --file <entries.csv|entry.json> [--draft]',
    help:
      'Creates journal entries from a file and posts them (--draft leaves them as drafts).\n\n' +
      'CSV: a header row with the columns date, description, account, debit, credit and optionally\n' +
      'currency and memo. Each row is one line; consecutive rows with the same date and description form\n' +
      'one entry. `account` is the account number; amounts are decimal strings (e.g. 1250.00) and the\n' +
      "currency defaults to the company's functional currency.\n\n" +
      'JSON: one entry or an array of entries in the body shape of POST /api/v1/journal-entries;\n' +
      'organizationId and companyId default to --org and --company, and a line may name its account by\n' +
      '`accountNumber` instead of `accountId`.',
    options: {
      org: { type: 'string' },
      company: { type: 'string' },
      file: { type: 'string' },
      draft: { type: 'boolean' },
    },
    async run({ values, positionals }, c) {
      expectSub(positionals, 'post');
      const organizationId = required(values, 'org');
      const companyId = required(values, 'company');
      const file = required(values, 'file');
      const text = readFileSync(file, 'utf8');
      const company = await unwrap(
        c.client.GET('/api/v1/organizations/{organizationId}/companies/{companyId}', {
          params: { path: { organizationId, companyId } },
        }),
      );
      const accounts = await accountNumbers(c.client, organizationId, companyId);
      const entries = file.toLowerCase().endsWith('.json')
        ? entriesFromJson(JSON.parse(text), organizationId, companyId, accounts)
        : entriesFromCsv(text, organizationId, companyId, company.functionalCurrency, accounts);
      const rows: string[][] = [];
      for (const body of entries) {
        const created = await unwrap(c.client.POST('/api/v1/journal-entries', { body: body as never }));
        let status = created.status;
        if (!values.draft) {
          const posted = await unwrap(
            c.client.POST('/api/v1/journal-entries/{id}/post', {
              params: { path: { id: created.id } },
              body: { organizationId },
            }),
          );
          status = posted.status;
        }
        rows.push([created.entryNumber, created.transactionDate, created.description, status, created.id]);
      }
      c.io.out(table(['Entry', 'Date', 'Description', 'Status', 'ID'], rows));
    },
  },
  consolidate: {
    usage:
      'groupbook consolidate --group <id> --year <year> --period <period> [--force]\n' +
      '                      [--statement balance-sheet|income-statement|cash-flow|equity-statement|trial-balance]\n' +
      '                      [--format table|csv|json]',
    help:
      'Runs a consolidation of the group for a period of its calendar and prints the consolidated\n' +
      'statement (default: the balance sheet). --force runs again when a completed run exists.',
    options: {
      group: { type: 'string' },
      year: { type: 'string' },
      period: { type: 'string' },
      force: { type: 'boolean' },
      statement: { type: 'string' },
      format: { type: 'string' },
    },
    async run({ values }, c) {
      const groupId = required(values, 'group');
      const year = integer(values, 'year');
      const period = integer(values, 'period');
      const statement = reportName((values.statement as string | undefined) ?? 'balance-sheet');
      const format = outputFormat(values.format);
      const run = await unwrap(
        c.client.POST('/api/v1/consolidation/groups/{groupId}/runs', {
          params: { path: { groupId } },
          body: { periodRef: { year, period }, ...(values.force ? { forceRegeneration: true } : {}) },
        }),
      );
      if (run.status !== 'Completed') {
        throw new Error(`the run ${run.id} ended ${run.status}: ${run.errorMessage ?? ''}`);
      }
      const report = await consolidatedReport(c.client, run.id, statement);
      if (format === 'table') c.io.out(`Consolidation run ${run.id} (${year}/${period}): ${run.status}\n\n`);
      c.io.out(render(report, statement, format));
    },
  },
  report: {
    usage:
      'groupbook report <trial-balance|balance-sheet|income-statement|cash-flow|equity-statement>\n' +
      '                 (--org <id> --company <id> | --run <consolidation run id>)\n' +
      '                 [--as-of <date>] [--from <date> --to <date>] [--format table|csv|json] [--out <file>]',
    help:
      "Exports a company's report (trial balance and balance sheet as of --as-of; the others for\n" +
      '--from..--to) or a statement of a consolidation run (--run), as a table, CSV or JSON, to the\n' +
      'terminal or to --out.',
    options: {
      org: { type: 'string' },
      company: { type: 'string' },
      run: { type: 'string' },
      'as-of': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
    },
    async run({ values, positionals }, c) {
      const name = reportName(positionals[0] ?? '');
      const format = outputFormat(values.format);
      let report: Json;
      if (values.run) {
        report = await consolidatedReport(c.client, values.run as string, name);
      } else {
        const organizationId = required(values, 'org');
        const companyId = required(values, 'company');
        const pointInTime = name === 'trial-balance' || name === 'balance-sheet';
        const query: Record<string, string> = pointInTime
          ? { organizationId, companyId, asOfDate: required(values, 'as-of') }
          : {
              organizationId,
              companyId,
              periodStartDate: required(values, 'from'),
              periodEndDate: required(values, 'to'),
            };
        report = await unwrap(
          c.client.GET(`/api/v1/reports/${name}` as '/api/v1/reports/trial-balance', {
            params: { query: query as never },
          }),
        );
      }
      const text = render(report, name, format);
      if (values.out) {
        writeFileSync(values.out as string, text);
        c.io.out(`wrote ${values.out}\n`);
      } else c.io.out(text);
    },
  },
};

function topHelp(): string {
  return [
    'groupbook: command-line tool for a Groupbook service',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage.split('\n')[0]}`),
    '',
    'Options for every command: --help. Environment: GROUPBOOK_URL, GROUPBOOK_TOKEN, GROUPBOOK_CONFIG.',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(topHelp());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`groupbook: unknown command ${JSON.stringify(name)}\n\n${topHelp()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`Usage: ${command.usage}\n\n${command.help}\n`);
    return 0;
  }
  try {
    const args = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    const configPath = io.env.GROUPBOOK_CONFIG ?? join(homedir(), '.config', 'groupbook', 'session.json');
    const stored = readSession(configPath);
    const session: Session = {
      url: io.env.GROUPBOOK_URL ?? stored?.url ?? 'http://127.0.0.1:3000',
      token: io.env.GROUPBOOK_TOKEN ?? stored?.token ?? null,
    };
    const client = createGroupbookClient({ baseUrl: session.url, token: session.token });
    const save = (next: Session) => {
      mkdirSync(dirname(configPath), { recursive: true });
      writeFileSync(configPath, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    };
    await command.run(args as never, { io, session, client, save });
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`groupbook ${name}: ${(err as Error).message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    if (err instanceof GroupbookError) {
      io.err(`groupbook ${name}: ${err.status} ${err.tag}\n${JSON.stringify(err.body, null, 2)}\n`);
      return 1;
    }
    io.err(`groupbook ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

function readSession(path: string): Session | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Session;
  } catch {
    return null;
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function integer(values: Record<string, string | boolean | undefined>, name: string): number {
  const v = required(values, name);
  if (!/^[0-9]+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

function expectSub(positionals: string[], sub: string): void {
  if (positionals[0] !== sub) throw new UsageError(`expected "${sub}"`);
}

function reportName(name: string): ReportName {
  if (!(REPORTS as readonly string[]).includes(name)) {
    throw new UsageError(`the report is one of ${REPORTS.join(', ')}`);
  }
  return name as ReportName;
}

function outputFormat(value: string | boolean | undefined): 'table' | 'csv' | 'json' {
  const format = (value as string | undefined) ?? 'table';
  if (format !== 'table' && format !== 'csv' && format !== 'json') {
    throw new UsageError('--format is table, csv or json');
  }
  return format;
}

async function consolidatedReport(client: GroupbookClient, runId: string, name: ReportName): Promise<Json> {
  const params = { params: { path: { id: runId } } };
  if (name === 'trial-balance')
    return unwrap(client.GET('/api/v1/consolidation/runs/{id}/trial-balance', params));
  return unwrap(
    client.GET(
      `/api/v1/consolidation/runs/{id}/reports/${name}` as '/api/v1/consolidation/runs/{id}/reports/balance-sheet',
      params,
    ),
  );
}

async function accountNumbers(
  client: GroupbookClient,
  organizationId: string,
  companyId: string,
): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (let offset = 0; ; offset += 100) {
    const page = await unwrap(
      client.GET('/api/v1/accounts', {
        params: { query: { organizationId, companyId, limit: 100, offset } },
      }),
    );
    for (const a of page.accounts) map.set(a.accountNumber, a.id);
    if (offset + 100 >= page.total) break;
  }
  return map;
}

function accountId(accounts: Map<string, string>, number: string, where: string): string {
  const id = accounts.get(number);
  if (!id) throw new UsageError(`${where}: the company has no account ${number}`);
  return id;
}

function entriesFromCsv(
  text: string,
  organizationId: string,
  companyId: string,
  currency: string,
  accounts: Map<string, string>,
): Json[] {
  const records = parseCsv(text, { columns: true, skip_empty_lines: true, trim: true }) as Array<
    Record<string, string>
  >;
  for (const column of ['date', 'description', 'account']) {
    if (records.length > 0 && !(column in records[0]!))
      throw new UsageError(`the CSV has no column "${column}"`);
  }
  const entries: Json[] = [];
  let current: Json | null = null;
  records.forEach((r, i) => {
    const where = `row ${i + 2}`;
    if (!current || current.transactionDate !== r.date || current.description !== r.description) {
      current = { organizationId, companyId, transactionDate: r.date, description: r.description, lines: [] };
      entries.push(current);
    }
    const lineCurrency = r.currency || currency;
    const line: Json = { accountId: accountId(accounts, r.account!, where) };
    if (r.debit) line.debitAmount = { value: r.debit, currency: lineCurrency };
    if (r.credit) line.creditAmount = { value: r.credit, currency: lineCurrency };
    if (r.memo) line.description = r.memo;
    current.lines.push(line);
  });
  if (entries.length === 0) throw new UsageError('the CSV has no rows');
  return entries;
}

function entriesFromJson(
  value: unknown,
  organizationId: string,
  companyId: string,
  accounts: Map<string, string>,
): Json[] {
  const list = (Array.isArray(value) ? value : [value]) as Json[];
  return list.map((entry, i) => ({
    organizationId,
    companyId,
    ...entry,
    lines: ((entry.lines ?? []) as Json[]).map((line, j) => {
      const { accountNumber, ...rest } = line;
      return accountNumber === undefined
        ? rest
        : { ...rest, accountId: accountId(accounts, String(accountNumber), `entry ${i + 1} line ${j + 1}`) };
    }),
  }));
}

// ---------------------------------------------------------------------------------------------------
// Rendering of reports

const isMoney = (v: unknown): v is { value: string; currency: string } =>
  !!v &&
  typeof v === 'object' &&
  typeof (v as Json).value === 'string' &&
  typeof (v as Json).currency === 'string';

/** `totalLiabilitiesAndEquity` → `Total liabilities and equity`. */
const humanize = (key: string) => {
  const words = key
    .replace(/NCI/g, 'NonControllingInterest')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/non controlling/g, 'non-controlling');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** A statement as rows [label, amount]: sections with their lines and subtotals, then totals. */
function statementRows(report: Json): string[][] {
  const rows: string[][] = [];
  for (const [key, value] of Object.entries(report)) {
    if (
      value &&
      typeof value === 'object' &&
      Array.isArray((value as Json).lineItems) &&
      (value as Json).title
    ) {
      const section = value as Json;
      rows.push([section.title, '']);
      for (const item of section.lineItems as Json[]) {
        const label = [item.accountNumber, item.description ?? item.accountName].filter(Boolean).join(' ');
        const amount = [item.currentAmount, item.amount, item.consolidatedBalance].find(isMoney);
        rows.push([`  ${label}`, amount?.value ?? '']);
      }
      const total = [section.subtotal, section.netCashFlow].find(isMoney);
      if (total) rows.push([`Total ${String(section.title).toLowerCase()}`, total.value]);
    } else if (isMoney(value)) {
      rows.push([humanize(key), value.value]);
    } else if (typeof value === 'boolean') {
      rows.push([humanize(key), value ? 'yes' : 'no']);
    }
  }
  return rows;
}

/** Rows of an array of objects (trial-balance lines, equity movements): text and Money columns. */
function listRows(items: Json[]): { header: string[]; rows: string[][] } {
  const first = items[0] ?? {};
  const preferred = ['accountNumber', 'accountName', 'description', 'movementType'];
  const textKeys = preferred.filter((k) => k in first);
  const moneyKeys = Object.keys(first).filter((k) => isMoney(first[k]) || items.some((i) => isMoney(i[k])));
  return {
    header: [...textKeys, ...moneyKeys].map(humanize),
    rows: items.map((i) => [
      ...textKeys.map((k) => String(i[k] ?? '')),
      ...moneyKeys.map((k) => (isMoney(i[k]) ? i[k].value : '')),
    ]),
  };
}

function render(report: Json, name: ReportName, format: 'table' | 'csv' | 'json'): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  const list =
    name === 'trial-balance'
      ? (report.lineItems as Json[])
      : name === 'equity-statement'
        ? equityRows(report)
        : null;
  const { header, rows } = list
    ? listRows(list)
    : { header: ['Line', `Amount (${report.currency ?? ''})`], rows: statementRows(report) };
  if (list && name === 'trial-balance') {
    rows.push([
      'Total',
      '',
      ...header
        .slice(2)
        .map(
          (h) =>
            (h === 'Debit balance'
              ? report.totalDebits?.value
              : h === 'Credit balance'
                ? report.totalCredits?.value
                : '') ?? '',
        ),
    ]);
  }
  if (format === 'csv') return stringifyCsv([header, ...rows]);
  const title = `${humanize(name.replace(/-(.)/g, (_, ch: string) => ch.toUpperCase()))}${report.asOfDate ? ` as of ${report.asOfDate}` : report.periodEndDate ? ` ${report.periodStartDate} to ${report.periodEndDate}` : ''} (${report.currency ?? ''})`;
  return `${title}\n${table(header, rows)}`;
}

function equityRows(report: Json): Json[] {
  return [report.openingBalances, ...((report.movements as Json[]) ?? []), report.closingBalances].filter(
    Boolean,
  );
}

/** A text table: the first column left-aligned, amounts right-aligned. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => i > 0 && rows.every((r) => /^-?[0-9.]*$/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}
