/**
 * `npx tsx bench/ownership-run.ts [--runs N] [--db-name NAME] [--fresh] [--save-digest FILE] [--check-digest FILE]`
 *
 * In-process measurement of the ownership scenario's consolidation run (200 companies in 3 tiers, 4
 * currencies, 300 accounts each, every member with acquisition data) next to the 50-company 10 k-line
 * run, on PostgreSQL (DATABASE_URL's server, default 127.0.0.1:5432). The data is generated once into
 * the database NAME (default `groupbook_bench_ownership`) and reused by later invocations (`--fresh`
 * generates it again). Each round runs both groups through the real app (`POST …/runs`, in process)
 * and reports per run: wall-clock ms, this process's CPU ms (user + system), the PostgreSQL backends'
 * CPU ms, and the wall-clock ms of each phase (loading, each engine step, input digest, final
 * transaction). The machine may be shared: CPU ms and the ratio of the two runs measured in the same
 * round resist load better than wall-clock time.
 *
 * `--save-digest FILE` writes a digest of each run's results (both trial balances, eliminations,
 * totals, acquisition analysis, input digest, stored contributions); `--check-digest FILE` compares
 * against such a file and exits non-zero on a difference.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { openDatabase } from '../src/db/client.ts';
import { runPhaseProbe } from '../src/modules/consolidation/runs.execute.ts';
import { backendCpuMs } from './load.ts';
import { type Dataset, generateDataset } from './generate.ts';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const runs = Number(option('runs') ?? 7);
const dbName = option('db-name') ?? 'groupbook_bench_ownership';
const fresh = process.argv.includes('--fresh');
const saveDigest = option('save-digest');
const checkDigest = option('check-digest');
const log = (m: string) => process.stderr.write(`${m}\n`);

const base = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
const admin = new URL(base);
admin.pathname = '/postgres';
const url = new URL(base);
url.pathname = `/${dbName}`;
const stateFile = `/tmp/${dbName}.json`;

type Sets = { small: Dataset; owned: Dataset };

async function prepare(): Promise<Sets> {
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  const exists = (await c.query('select 1 from pg_database where datname = $1', [dbName])).rowCount === 1;
  if (exists && !fresh && existsSync(stateFile)) {
    await c.end();
    return JSON.parse(readFileSync(stateFile, 'utf8')) as Sets;
  }
  if (exists) await c.query(`drop database ${dbName} with (force)`);
  await c.query(`create database ${dbName}`);
  await c.end();
  const database = await openDatabase({ url: url.toString(), poolSize: 2 });
  try {
    await database.migrate();
    const stamp = Date.now();
    const small = await generateDataset(
      database.db,
      { label: `10k-${stamp}`, companies: 50, accountsPerCompany: 200, lines: 10_000 },
      log,
    );
    const owned = await generateDataset(
      database.db,
      {
        label: `owned-${stamp}`,
        companies: 200,
        accountsPerCompany: 300,
        lines: 200_000,
        currencies: ['USD', 'EUR', 'GBP', 'JPY'],
        ownership: { tiers: 3 },
      },
      log,
    );
    const sets = { small, owned };
    writeFileSync(stateFile, JSON.stringify(sets));
    const v = new pg.Client({ connectionString: url.toString() });
    await v.connect();
    await v.query('vacuum analyze');
    await v.end();
    return sets;
  } finally {
    await database.close();
  }
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const sets = await prepare();
  const database = await openDatabase({ url: url.toString(), poolSize: 10 });
  const app = await buildApp({ database, logger: false });
  const raw = new pg.Client({ connectionString: url.toString() });
  await raw.connect();
  await app.ready();
  const phases = new Map<string, number>();
  runPhaseProbe.mark = (phase, ms) => phases.set(phase, (phases.get(phase) ?? 0) + ms);
  const post = async (ds: Dataset) => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/consolidation/groups/${ds.groupId}/runs?organizationId=${ds.organizationId}`,
      headers: { authorization: `Bearer ${ds.tokens.owner}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ periodRef: { year: ds.year, period: 12 }, forceRegeneration: true }),
    });
    const body = res.json() as { id: string; status: string };
    if (res.statusCode !== 201 || body.status !== 'Completed')
      throw new Error(`run answered ${res.statusCode} ${res.body.slice(0, 500)}`);
    return body;
  };
  const digestOf = async (ds: Dataset, runId: string) => {
    const h = createHash('sha256');
    const run = (
      await raw.query(
        `select eliminations, totals, acquisition_analysis, input_digest, elimination_entries
       from consolidation_runs where id = $1`,
        [runId],
      )
    ).rows;
    h.update(JSON.stringify(run));
    for (const view of ['closing', 'opening']) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/v1/consolidation/runs/${runId}/trial-balance?organizationId=${ds.organizationId}&view=${view}`,
        headers: { authorization: `Bearer ${ds.tokens.owner}` },
      });
      const tb = res.json() as Record<string, unknown>;
      delete tb.generatedAt;
      delete tb.consolidationRunId;
      h.update(JSON.stringify(tb));
    }
    const contributions = (
      await raw.query(
        `select * from consolidation_line_contributions where run_id = $1 order by view, line_id`,
        [runId],
      )
    ).rows as Record<string, unknown>[];
    h.update(
      JSON.stringify(
        contributions.map((r) => {
          const { run_id: _r, organization_id: _o, ...rest } = r;
          return rest;
        }),
      ),
    );
    return h.digest('hex');
  };

  const rows: { label: string; wall: number; cpu: number; pg: number; phases: Record<string, number> }[] = [];
  const pgName = dbName;
  await post(sets.small); // warm-up
  await post(sets.owned);
  for (let i = 0; i < runs; i++) {
    for (const [label, ds] of [
      ['10k', sets.small],
      ['owned', sets.owned],
    ] as const) {
      phases.clear();
      const pg0 = backendCpuMs(pgName);
      const c0 = cpuMs();
      const t0 = performance.now();
      await post(ds);
      const wall = performance.now() - t0;
      const cpu = cpuMs() - c0;
      const pg1 = backendCpuMs(pgName);
      let pgCpu = 0;
      for (const [pid, ms] of pg1) pgCpu += ms - (pg0.get(pid) ?? 0);
      rows.push({ label, wall, cpu, pg: pgCpu, phases: Object.fromEntries(phases) });
      log(
        `${label.padEnd(5)} wall ${wall.toFixed(0).padStart(5)} cpu ${cpu.toFixed(0).padStart(5)} pg ${pgCpu
          .toFixed(0)
          .padStart(4)} | ${[...phases].map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`,
      );
    }
  }
  const of = (label: string) => rows.filter((r) => r.label === label);
  const report: Record<string, unknown> = {};
  for (const label of ['10k', 'owned']) {
    const rs = of(label);
    const ph: Record<string, number> = {};
    for (const k of Object.keys(rs[0]!.phases)) ph[k] = Math.round(median(rs.map((r) => r.phases[k] ?? 0)));
    report[label] = {
      wallP50: Math.round(median(rs.map((r) => r.wall))),
      cpuP50: Math.round(median(rs.map((r) => r.cpu))),
      pgCpuP50: Math.round(median(rs.map((r) => r.pg))),
      phasesP50: ph,
    };
  }
  const ratios = of('owned').map((r, i) => r.wall / 200 / (of('10k')[i]!.wall / 50));
  report.perCompanyRatioP50 = Number(median(ratios).toFixed(2));
  const cpuRatios = of('owned').map((r, i) => r.cpu / 200 / (of('10k')[i]!.cpu / 50));
  report.perCompanyCpuRatioP50 = Number(median(cpuRatios).toFixed(2));
  console.log(JSON.stringify(report, null, 2));

  if (saveDigest || checkDigest) {
    const last = { small: (await post(sets.small)).id, owned: (await post(sets.owned)).id };
    const digests = {
      small: await digestOf(sets.small, last.small),
      owned: await digestOf(sets.owned, last.owned),
    };
    if (saveDigest) writeFileSync(saveDigest, JSON.stringify(digests, null, 2));
    if (checkDigest) {
      const before = JSON.parse(readFileSync(checkDigest, 'utf8')) as typeof digests;
      const same = before.small === digests.small && before.owned === digests.owned;
      console.log(same ? 'digests: identical' : `digests DIFFER: ${JSON.stringify({ before, digests })}`);
      if (!same) process.exitCode = 1;
    }
  }
  await raw.end();
  await app.close();
  await database.close();
}

await main();
