/**
 * Start-up: configuration → database → migrations → HTTP server. With a PostgreSQL server and
 * WORKERS > 1, the primary process migrates once and forks workers that share the port (node:cluster);
 * PGlite is single-process and always runs one.
 */
import cluster from 'node:cluster';
import v8 from 'node:v8';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { DEFAULT_RETRY_POLICY } from './domain/webhooks.ts';
import { capHeapGrowth } from './runtime/heap-growth.ts';
import { findConsoleDir } from './http/console.ts';

/**
 * V8 lets the old generation grow to several times its live size between full collections when they
 * are cheap; under request load or during a consolidation run that made a process whose live heap is
 * about 35 MB reach 260–290 MB resident. A fixed growth of 50 % over the live size (with the young
 * generation capped by `npm start`'s `--max-semi-space-size`) keeps it under 200 MB, for about 10 % of a
 * consolidation run's time and nothing measurable in request throughput (docs/performance.md, "Memory").
 * Very large consolidation runs relax it while they execute (see `runtime/heap-growth.ts`).
 */
capHeapGrowth(50);

async function start(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`groupbook: invalid configuration: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const multi = config.databaseUrl !== undefined && config.workers > 1;
  if (config.databaseUrl === undefined && !config.pgliteWasmOptimize) {
    /**
     * PGlite's PostgreSQL is 9 MB of WebAssembly. V8 compiles each function on its first call with its
     * baseline compiler (Liftoff) and recompiles the hot ones in the background with its optimizing
     * compiler (TurboFan); on PostgreSQL's large functions those recompilations took ~1 s of CPU at
     * start and left ~45 MB of freed compiler memory and optimized code resident, ~70 MB under load
     * (docs/performance.md, issue 25). Baseline code only: resident memory stays about 70 MB lower, the
     * start needs half the CPU, and request throughput did not measurably change, because most of a
     * request's PGlite time is spent crossing between JavaScript and WebAssembly, not in compiled code.
     * Set before PGlite's module is compiled (openDatabase below).
     */
    v8.setFlagsFromString('--liftoff-only');
  }

  if (multi && cluster.isPrimary) {
    const database = await openDatabase({ url: config.databaseUrl, poolSize: 1 });
    await database.migrate();
    await database.close();
    for (let i = 0; i < config.workers; i++) cluster.fork();
    cluster.on('exit', (worker, code) => {
      if (code !== 0) process.stderr.write(`groupbook: worker ${worker.process.pid} exited with ${code}\n`);
    });
    return;
  }

  // Commits cut off by a lost connection and resolved on the server that took over are logged once
  // the app (and its logger) exists.
  let onCommitResolved = (_outcome: string): void => {};
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
    poolSize: config.dbPoolSize,
    stallTimeoutMs: config.dbStallTimeoutMs,
    onCommitResolved: (outcome) => onCommitResolved(outcome),
  });
  if (!multi) await database.migrate();
  const app = await buildApp({
    database,
    logLevel: config.logLevel,
    rateLimitPerMinute: config.rateLimitPerMinute,
    consoleDir: findConsoleDir(import.meta.url),
    webhooks: {
      policy: {
        allowHttp: config.webhookAllowHttp,
        allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      },
      dispatch: config.webhookDispatcher,
      dispatcher: {
        pollMs: config.webhookPollMs,
        retry: { ...DEFAULT_RETRY_POLICY, baseDelayMs: config.webhookRetryBaseMs },
      },
    },
    runLeaseMs: config.runLeaseSeconds * 1000,
    idempotencyLeaseMs: config.idempotencyLeaseSeconds * 1000,
  });
  onCommitResolved = (outcome) =>
    app.log.warn({ outcome }, 'a commit cut off by a lost connection was resolved on the primary');
  const shutdown = async () => {
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  await app.listen({ port: config.port, host: config.host });
}

start().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`groupbook: failed to start: ${message.split('\n')[0]}\n`);
  process.exit(1);
});
