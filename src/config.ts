/**
 * Service configuration, read from the environment only. Invalid values stop start-up with one clear
 * line (see main.ts), never a stack trace.
 */
export interface Config {
  port: number;
  host: string;
  /** PostgreSQL server URL; when undefined the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** PGlite data directory; `memory://` keeps the database in memory. */
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Connection-pool size for a PostgreSQL server. */
  dbPoolSize: number;
  /** Worker processes (node:cluster) when a PostgreSQL server is used; PGlite always runs one. */
  workers: number;
  /** Optional per-client rate limit in requests per minute; 0 disables it. */
  rateLimitPerMinute: number;
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
    logLevel,
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 500),
    workers: integer(env, 'WORKERS', 1, 1, 64),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 10_000_000),
  };
}
