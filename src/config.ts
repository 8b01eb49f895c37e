/**
 * Service configuration, read from the environment only. Invalid values stop start-up with one clear
 * line (see main.ts), never a stack trace.
 */
import { DEFAULT_STALL_TIMEOUT_MS, PGLITE_SHARED_BUFFERS_MB } from './db/client.ts';

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL server URL; when undefined the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** PGlite data directory; `memory://` keeps the database in memory. */
  dataDir: string;
  /** PGlite's shared buffers in MB (PGLITE_SHARED_BUFFERS_MB); the page cache of the embedded database. */
  pgliteSharedBuffersMb: number;
  /**
   * PGlite's WebAssembly may also be compiled by V8's optimizing compiler (PGLITE_WASM_OPTIMIZE=true);
   * by default it runs on the baseline compiler's code only (see main.ts).
   */
  pgliteWasmOptimize: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Connection-pool size for a PostgreSQL server. */
  dbPoolSize: number;
  /**
   * A statement that has waited this long while the PostgreSQL server answered nothing, and a probe of
   * the server finds it stalled, fails as a lost connection does (DB_STALL_TIMEOUT_MS; 0 turns it off).
   */
  dbStallTimeoutMs: number;
  /** Worker processes (node:cluster) when a PostgreSQL server is used; PGlite always runs one. */
  workers: number;
  /** Optional per-client rate limit in requests per minute; 0 disables it. */
  rateLimitPerMinute: number;
  /** Webhook URLs may use http:// (WEBHOOK_ALLOW_HTTP=true). */
  webhookAllowHttp: boolean;
  /** Webhooks may reach private, loopback and link-local addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true). */
  webhookAllowPrivateNetworks: boolean;
  /** This process runs the webhook dispatcher (WEBHOOK_DISPATCHER, default true). */
  webhookDispatcher: boolean;
  /** Delay after a first failed delivery attempt, doubled per failure (WEBHOOK_RETRY_BASE_MS). */
  webhookRetryBaseMs: number;
  /** Wait between dispatcher cycles when idle (WEBHOOK_POLL_MS). */
  webhookPollMs: number;
  /** Lease of a consolidation run's executor: a run not renewed for this long is failed as orphaned. */
  runLeaseSeconds: number;
  /** Lease of an Idempotency-Key claim in progress: a claim not renewed for this long may be retaken. */
  idempotencyLeaseSeconds: number;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false')
    throw new ConfigError(`${name} must be true or false (got "${raw}")`);
  return raw === 'true';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL === '' ? undefined : env.DATABASE_URL;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  }
  const host = env.HOST || '127.0.0.1';
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host,
    databaseUrl,
    dataDir: env.DATA_DIR || './data',
    pgliteSharedBuffersMb: integer(env, 'PGLITE_SHARED_BUFFERS_MB', PGLITE_SHARED_BUFFERS_MB, 1, 4096),
    pgliteWasmOptimize: flag(env, 'PGLITE_WASM_OPTIMIZE', false),
    logLevel,
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 500),
    dbStallTimeoutMs: integer(env, 'DB_STALL_TIMEOUT_MS', DEFAULT_STALL_TIMEOUT_MS, 0, 3_600_000),
    workers: integer(env, 'WORKERS', 1, 1, 64),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 10_000_000),
    webhookAllowHttp: flag(env, 'WEBHOOK_ALLOW_HTTP', false),
    webhookAllowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookDispatcher: flag(env, 'WEBHOOK_DISPATCHER', true),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 1, 3_600_000),
    webhookPollMs: integer(env, 'WEBHOOK_POLL_MS', 200, 10, 60_000),
    runLeaseSeconds: integer(env, 'RUN_LEASE_SECONDS', 60, 1, 86_400),
    idempotencyLeaseSeconds: integer(env, 'IDEMPOTENCY_LEASE_SECONDS', 60, 1, 86_400),
  };
}
