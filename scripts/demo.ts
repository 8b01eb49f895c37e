/**
 * `npm run demo`: builds a realistic demo group against a RUNNING Groupbook service, through its HTTP
 * API only (scripts/demo-data.ts says what it creates), and prints the login and what to open.
 *
 *   BASE_URL   service address (default http://127.0.0.1:3000)
 *   DEMO_YEAR  fiscal year of the demo data (default: last calendar year)
 *   DEMO_ORG   organization name (default: `Northwind Group (demo <stamp>)`, new on every run;
 *              organization names are unique across the whole service)
 *
 * The first request that does not answer 2xx stops the script with its status and error body (exit
 * code 1); it also exits 1 when the consolidated balance sheet does not balance.
 */
import { type Api, buildDemo, type Json } from './demo-data.ts';

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const YEAR = Number(process.env.DEMO_YEAR ?? new Date().getUTCFullYear() - 1);
const PASSWORD = 'Demo-pass-2024';

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    method: string,
    path: string,
  ) {
    super(`${method} ${path} → ${status} ${JSON.stringify(body)}`);
  }
}

let requestCount = 0;

const api: Api = async <T = Json>(method: string, path: string, body?: unknown, token?: string | null) => {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  requestCount++;
  const res = await fetch(`${BASE_URL}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!res.ok) throw new ApiError(res.status, parsed, method, path);
  return parsed as T;
};

async function waitForService() {
  for (let i = 0; i < 60; i++) {
    try {
      const res = await fetch(`${BASE_URL}/api/health`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no Groupbook service answers at ${BASE_URL} (start one with: npm start)`);
}

async function main() {
  await waitForService();
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
  const demo = await buildDemo(api, {
    year: YEAR,
    stamp,
    password: PASSWORD,
    ...(process.env.DEMO_ORG ? { organizationName: process.env.DEMO_ORG } : {}),
    step: (message) => process.stdout.write(`• ${message}\n`),
  });
  const { email, token, org, companies, group, rules, icIds, run } = demo;
  const orgId: string = org.id;
  const parent = companies.parent!;
  const sheet = await api(
    'GET',
    `/api/v1/consolidation/runs/${run.id}/reports/balance-sheet`,
    undefined,
    token,
  );
  const income = await api(
    'GET',
    `/api/v1/consolidation/runs/${run.id}/reports/income-statement`,
    undefined,
    token,
  );
  const warnings = ((run.validationResult?.issues ?? []) as Json[]).map((i) => i.code);

  const applied = (run.eliminations as Json[]).filter((e) => e.status === 'Applied');
  const fmt = (m: Json | undefined) => (m ? `${m.value} ${m.currency}` : '—');
  const lines = [
    '',
    'Demo ready.',
    '',
    `  Service        ${BASE_URL}`,
    `  Login          ${email}  /  ${PASSWORD}`,
    `  Organization   ${orgId}  ${org.name}`,
    ...Object.values(companies).map(
      (c) =>
        `  Company        ${c.id}  ${c.name} (${c.currency}, ${c.key === 'parent' ? 'parent' : `${c.ownership} %`})`,
    ),
    `  Group          ${group.id}  ${group.name}`,
    `  Rules          ${(rules.created as Json[]).map((r) => r.id).join(', ')}`,
    `  IC txns        ${icIds.length} matched intercompany sales`,
    `  Run            ${run.id}  ${run.status}, ${YEAR}/12, ${applied.length} eliminations applied`,
    '',
    `  Consolidated   total assets ${fmt(sheet.totalAssets)}, liabilities + equity ${fmt(sheet.totalLiabilitiesAndEquity)}`,
    `                 net income ${fmt(income.netIncome)} (parent ${fmt(income.netIncomeAttributableToParent)}, NCI ${fmt(income.netIncomeAttributableToNCI)})`,
    `                 non-controlling interest ${fmt(sheet.nonControllingInterest)}; balanced: ${sheet.isBalanced}`,
    ...(warnings.length ? [`                 run warnings: ${[...new Set(warnings)].join(', ')}`] : []),
    '',
    'What to open (send the token as "Authorization: Bearer <token>"):',
    `  API reference             ${BASE_URL}/api/docs   (Authorize with the token below)`,
    `  Consolidated balance sheet ${BASE_URL}/api/v1/consolidation/runs/${run.id}/reports/balance-sheet`,
    `  Consolidated income        ${BASE_URL}/api/v1/consolidation/runs/${run.id}/reports/income-statement`,
    `  Consolidated cash flow     ${BASE_URL}/api/v1/consolidation/runs/${run.id}/reports/cash-flow`,
    `  Trial balance              ${BASE_URL}/api/v1/consolidation/runs/${run.id}/trial-balance`,
    `  Run (steps, eliminations)  ${BASE_URL}/api/v1/consolidation/runs/${run.id}`,
    `  Parent balance sheet       ${BASE_URL}/api/v1/reports/balance-sheet?organizationId=${orgId}&companyId=${parent.id}&asOfDate=${YEAR}-12-31`,
    '',
    'For example:',
    `  TOKEN=$(curl -s -X POST ${BASE_URL}/api/auth/login -H 'content-type: application/json' \\`,
    `    -d '{"email":"${email}","password":"${PASSWORD}"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')`,
    `  curl -s ${BASE_URL}/api/v1/consolidation/runs/${run.id}/reports/balance-sheet -H "authorization: Bearer $TOKEN"`,
    '',
    `(${demo.entryCount} journal entries posted, ${requestCount} API requests)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (sheet.isBalanced !== true) {
    process.stderr.write('demo: the consolidated balance sheet does not balance\n');
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  if (err instanceof ApiError) {
    process.stderr.write(`demo stopped at the first failing request: ${err.message}\n`);
  } else {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
