/**
 * `npx tsx bench/webhook-cpu.ts [--rate N] [--seconds S] [--rounds K] [--server-dir DIR] [--db-prefix NAME]
 * [--node-args ARGS]`
 *
 * What an active webhook endpoint costs per journal create, as CPU time rather than as a rate: a rate
 * measured on a shared machine moves with everything else running there, the CPU time a create costs
 * much less. On a fresh PostgreSQL database (DATABASE_URL's server), one server process (the bundle
 * `npm start` runs, from `--server-dir`, default this checkout) takes journal creates from autocannon
 * (10 connections) in turn without and with an active endpoint subscribed to `JournalEntryCreated`,
 * K rounds of each. The receiver is a separate process, so that its CPU time is counted apart from the
 * load generator's. Per mode it prints the CPU milliseconds per create of the server, of the database's
 * backends and of the receiver, over each run and its catch-up (every delivery received).
 *
 * `--rate N` holds the creates at N per second (default 250), so that both modes run at the same rate
 * and the server batches its work alike in both; `--rate 0` runs flat out (as `npm run bench`) and
 * also prints the ratio of the rates.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { api, freePort, seededRandom, setupTenant, sleep } from '../scripts/harness.ts';
import { startArgs } from '../scripts/start-command.ts';
import { backendCpuMs, mainThreadCpuMs, treeCpuMs } from './load.ts';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const rate = Number(option('rate') ?? 250);
const seconds = Number(option('seconds') ?? 6);
const rounds = Number(option('rounds') ?? 3);
const serverDir = resolve(option('server-dir') ?? ROOT);
/** Extra Node.js options of the server process, e.g. `--node-args "--cpu-prof --cpu-prof-dir=prof"`. */
const nodeArgs = option('node-args')?.split(' ').filter(Boolean) ?? [];
const dbPrefix = option('db-prefix') ?? 'groupbook_bench_cpu';
if (!/^[a-z_][a-z0-9_]*$/.test(dbPrefix)) throw new Error(`--db-prefix: not a plain identifier: ${dbPrefix}`);

/** The receiver (its own process): answers 204, counts deliveries and keeps their lags. */
const RECEIVER = `
const http = require('node:http');
let count = 0;
const lags = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const arrived = Date.now();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString());
      if (event.occurredAt) lags.push(arrived - Date.parse(event.occurredAt));
    } catch {}
    count++;
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ count });
  else if (m === 'lags') process.send({ lags: lags.splice(0) });
});
`;

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });
}

const log = (m: string) => process.stderr.write(`${m}\n`);
const perCreate = (ms: number, n: number) => (n > 0 ? ms / n : 0);

async function main() {
  const base = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `${dbPrefix}_${Date.now()}`;
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const adminClient = new pg.Client({ connectionString: admin.toString() });
  await adminClient.connect();
  await adminClient.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;

  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: serverDir, stdio: 'ignore' });
  const receiver = spawn(process.execPath, ['-e', RECEIVER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const receiverPort = await new Promise<number>((resolve) =>
    receiver.once('message', (m: { port: number }) => resolve(m.port)),
  );
  const port = await freePort();
  const server = spawn(process.execPath, [...nodeArgs, ...startArgs(serverDir)], {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WORKERS: '1',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      DATABASE_URL: url.toString(),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      if (i > 600) throw new Error('server did not become healthy');
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    const tenant = await setupTenant(port, 'Cpu', seededRandom(7));
    const created = await api(port, 'POST', '/api/v1/webhook-endpoints', {
      token: tenant.token,
      body: {
        organizationId: tenant.orgId,
        url: `http://127.0.0.1:${receiverPort}/hooks`,
        eventTypes: ['JournalEntryCreated'],
        enabled: false,
      },
    });
    if (created.status !== 201) throw new Error(`endpoint: ${created.status}`);
    const endpointId = created.body.id as string;
    const setEnabled = async (enabled: boolean) => {
      const res = await api(
        port,
        'PUT',
        `/api/v1/webhook-endpoints/${endpointId}?organizationId=${tenant.orgId}`,
        {
          token: tenant.token,
          body: { enabled },
        },
      );
      if (res.status !== 200) throw new Error(`endpoint update: ${res.status}`);
    };
    const body = JSON.stringify({
      organizationId: tenant.orgId,
      companyId: tenant.companyId,
      description: 'Webhook CPU bench',
      transactionDate: '2026-06-15',
      lines: [
        { accountId: tenant.cash, debitAmount: { value: '125.50', currency: 'USD' } },
        { accountId: tenant.revenue, creditAmount: { value: '125.50', currency: 'USD' } },
      ],
    });
    const create = (s: number) =>
      autocannon({
        url: `http://127.0.0.1:${port}/api/v1/journal-entries`,
        method: 'POST',
        connections: 10,
        duration: s,
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body,
        timeout: 30,
        ...(rate > 0 ? { overallRate: rate } : {}),
      });
    await create(2); // warm-up: JIT, plans, pool
    const totals = {
      off: { server: 0, main: 0, postgres: 0, receiver: 0, creates: 0, rate: 0, errors: 0 },
      on: { server: 0, main: 0, postgres: 0, receiver: 0, creates: 0, rate: 0, errors: 0 },
    };
    let delivered = (await ask<{ count: number }>(receiver, 'count')).count;
    const rows: string[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const mode of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        await setEnabled(mode === 'on');
        await sleep(300);
        const before = {
          server: treeCpuMs(server.pid!),
          main: mainThreadCpuMs(server.pid!),
          postgres: backendCpuMs(name),
          receiver: treeCpuMs(receiver.pid!),
        };
        const result = await create(seconds);
        const count = result.requests.total;
        if (mode === 'on') {
          const deadline = Date.now() + 30_000;
          while (Date.now() < deadline) {
            const now = (await ask<{ count: number }>(receiver, 'count')).count;
            if (now >= delivered + count) break;
            await sleep(20);
          }
        }
        await sleep(300); // the dispatcher's last cycles, in both modes
        delivered = (await ask<{ count: number }>(receiver, 'count')).count;
        const t = totals[mode];
        const serverMs = treeCpuMs(server.pid!) - before.server;
        const mainMs = mainThreadCpuMs(server.pid!) - before.main;
        let postgresMs = 0;
        for (const [pid, ms] of backendCpuMs(name)) postgresMs += ms - (before.postgres.get(pid) ?? 0);
        const receiverMs = treeCpuMs(receiver.pid!) - before.receiver;
        t.server += serverMs;
        t.main += mainMs;
        t.postgres += postgresMs;
        t.receiver += receiverMs;
        t.creates += count;
        t.rate += result.requests.total / result.duration / rounds;
        t.errors += result.errors + result.timeouts + result.non2xx;
        rows.push(
          `round ${r + 1} ${mode.padEnd(3)} ${(count / result.duration).toFixed(0).padStart(5)}/s  CPU ms per create: ` +
            `server ${perCreate(serverMs, count).toFixed(3)} (main thread ${perCreate(mainMs, count).toFixed(3)}), postgres ${perCreate(postgresMs, count).toFixed(3)}, ` +
            `receiver ${perCreate(receiverMs, count).toFixed(3)}`,
        );
        log(rows[rows.length - 1]!);
      }
    }
    await setEnabled(false);
    const lags = (await ask<{ lags: number[] }>(receiver, 'lags')).lags.sort((a, b) => a - b);
    const q = (f: number) => lags[Math.min(lags.length - 1, Math.floor(f * lags.length))] ?? null;
    const line = (mode: 'off' | 'on') => {
      const t = totals[mode];
      return {
        server: perCreate(t.server, t.creates),
        main: perCreate(t.main, t.creates),
        postgres: perCreate(t.postgres, t.creates),
        receiver: perCreate(t.receiver, t.creates),
      };
    };
    const off = line('off');
    const on = line('on');
    const fmt = (v: number) => v.toFixed(3);
    console.log(
      `webhook CPU bench: ${rate > 0 ? `${rate} creates/s` : 'flat out'}, ${rounds} rounds of ${seconds} s per mode, ` +
        `server ${serverDir === ROOT ? 'this checkout' : serverDir}`,
    );
    console.log(
      `| mode | creates/s | server ms | server main thread ms | postgres ms | receiver ms | server+postgres ms |`,
    );
    console.log(`|---|--:|--:|--:|--:|--:|--:|`);
    for (const [mode, v] of [
      ['none', off],
      ['active', on],
    ] as const) {
      const t = totals[mode === 'none' ? 'off' : 'on'];
      console.log(
        `| ${mode} | ${t.rate.toFixed(0)} | ${fmt(v.server)} | ${fmt(v.main)} | ${fmt(v.postgres)} | ${fmt(v.receiver)} | ${fmt(v.server + v.postgres)} |`,
      );
    }
    console.log(
      `extra per create: server ${fmt(on.server - off.server)} ms (main thread ${fmt(on.main - off.main)} ms, ` +
        `ratio none/active ${(off.main / on.main).toFixed(3)}), postgres ${fmt(on.postgres - off.postgres)} ms, ` +
        `receiver ${fmt(on.receiver - off.receiver)} ms; CPU ratio none/active, server+postgres: ` +
        `${((off.server + off.postgres) / (on.server + on.postgres)).toFixed(3)}, with the receiver: ` +
        `${((off.server + off.postgres + off.receiver) / (on.server + on.postgres + on.receiver)).toFixed(3)}` +
        (rate > 0 ? '' : `; rate ratio ${(totals.on.rate / totals.off.rate).toFixed(3)}`),
    );
    console.log(
      `lag p50 ${q(0.5)} ms, p99 ${q(0.99)} ms; errors ${totals.off.errors + totals.on.errors}; ` +
        `${delivered} delivered of ${totals.on.creates} created with the endpoint active`,
    );
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    receiver.kill('SIGTERM');
    await adminClient.query(`drop database if exists ${name} with (force)`);
    await adminClient.end();
  }
}

await main();
