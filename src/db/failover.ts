/**
 * PostgreSQL with a standby: libpq's multi-host connection URLs for the `pg` pool, which understands
 * only one host. `postgres://user@db1:5432,db2:5432/groupbook?target_session_attrs=read-write` lists
 * the servers; a new connection goes to the server last found to be the primary, and when that one
 * refuses it or has become read-only the hosts are tried again in the order given, like libpq does.
 * Requests that need a connection while no listed server accepts writes fail at once with a
 * connection error (answered `503 ServiceUnavailableError` with `Retry-After`), and the pool keeps
 * no broken connection: after a failover the service reconnects to the new primary by itself.
 *
 * Also here: which database errors mean "the database is unavailable" (a failover, a restart, a
 * network failure) rather than a fault of the request.
 */
import pg from 'pg';

export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

export interface HostPort {
  host: string;
  port: number;
}

export interface ParsedUrl {
  hosts: HostPort[];
  targetSessionAttrs: TargetSessionAttrs;
  /** The URL with the first host only and without `target_session_attrs`, for `pg` to read. */
  singleHostUrl: string;
}

const URL_RE = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/s;
const ATTRS: readonly string[] = ['any', 'read-write', 'primary'];

/** Splits a (possibly multi-host) PostgreSQL URL. Throws on a malformed host list or attribute. */
export function parsePostgresUrl(url: string): ParsedUrl {
  const m = URL_RE.exec(url);
  if (!m) throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  const [, scheme, userinfo, hostList, rest] = m as unknown as [
    string,
    string,
    string | undefined,
    string,
    string,
  ];
  const hosts = hostList.split(',').map((entry): HostPort => {
    const hm = /^(\[[^\]]+\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(entry);
    if (!hm || (hostList.includes(',') && hm[1] === ''))
      throw new Error(`DATABASE_URL: malformed host "${entry}"`);
    return { host: decodeURIComponent(hm[1]!.replace(/^\[|\]$/g, '')), port: Number(hm[2] ?? 5432) };
  });
  const [path, query = ''] = rest.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!ATTRS.includes(attrs))
    throw new Error(`DATABASE_URL: target_session_attrs must be one of ${ATTRS.join(', ')} (got "${attrs}")`);
  params.delete('target_session_attrs');
  const remaining = params.toString();
  const first = hosts[0]!;
  const firstHost = first.host.includes(':') ? `[${first.host}]` : encodeURIComponent(first.host);
  return {
    hosts,
    targetSessionAttrs: attrs as TargetSessionAttrs,
    singleHostUrl: `${scheme}${userinfo !== undefined ? `${userinfo}@` : ''}${firstHost}:${first.port}${path}${
      remaining ? `?${remaining}` : ''
    }`,
  };
}

/**
 * The base client of every pool: a connection that breaks while checked out (a transaction is open on
 * it) makes `pg` emit 'error' on the client, which would end the process with no listener. The error
 * also reaches the statements sent on it, and the pool discards the client when it is released.
 */
export class ConnectionClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {});
  }
}

/** The error a connection attempt fails with when no listed server is acceptable (SQLSTATE class 08). */
export class NoAcceptableServerError extends Error {
  readonly code = '08001';
}

/**
 * The `Client` class for a `pg.Pool` over several hosts: every instance connects to the server the
 * shared locator names, and tells the locator when that server refused it or does not accept writes.
 */
export function failoverClient(
  parsed: ParsedUrl,
  probeTimeoutMs: number,
  Base: typeof pg.Client = pg.Client,
): typeof pg.Client {
  const wantsWrites = parsed.targetSessionAttrs !== 'any';
  const locator = new PrimaryLocator(parsed, wantsWrites, probeTimeoutMs);

  class FailoverClient extends Base {
    /** Server parameters reported at start-up (`in_hot_standby`, `default_transaction_read_only`). */
    private readonly reported = new Map<string, string>();

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.connection.on('parameterStatus', (msg: { parameterName: string; parameterValue: string }) => {
        this.reported.set(msg.parameterName, msg.parameterValue);
      });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(
      callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void),
    ): Promise<pg.Client> | void {
      const connecting = this.connectToLocated().then(() => this);
      if (!callback) return connecting;
      const cb = callback as (err: Error | null, c?: pg.Client) => void;
      connecting.then(
        (client) => cb(null, client),
        (err: Error) => cb(err),
      );
    }

    private async connectToLocated(): Promise<void> {
      const index = await locator.locate();
      const { host, port } = parsed.hosts[index]!;
      pointAt(this, host, port);
      try {
        await super.connect();
      } catch (err) {
        locator.forget(index);
        throw err;
      }
      if (wantsWrites && !(await acceptsWrites(this, this.reported, parsed.targetSessionAttrs))) {
        locator.forget(index);
        await this.end().catch(() => {});
        throw new NoAcceptableServerError(`${host}:${port} does not accept writes`);
      }
    }
  }
  return FailoverClient;
}

/** Which host new connections go to; found again (hosts tried in order) once it fails. */
class PrimaryLocator {
  private known: number | null = null;
  private finding: Promise<number> | null = null;

  constructor(
    private readonly parsed: ParsedUrl,
    private readonly wantsWrites: boolean,
    private readonly probeTimeoutMs: number,
  ) {}

  locate(): Promise<number> {
    if (this.known !== null) return Promise.resolve(this.known);
    this.finding ??= this.find().finally(() => {
      this.finding = null;
    });
    return this.finding;
  }

  forget(index: number): void {
    if (this.known === index) this.known = null;
  }

  private async find(): Promise<number> {
    if (this.parsed.hosts.length === 1) return (this.known = 0);
    const refusals: string[] = [];
    for (const [index, { host, port }] of this.parsed.hosts.entries()) {
      const probe = new pg.Client({
        connectionString: this.parsed.singleHostUrl,
        connectionTimeoutMillis: this.probeTimeoutMs,
      });
      pointAt(probe, host, port);
      probe.on('error', () => {});
      try {
        await probe.connect();
        if (!this.wantsWrites || (await acceptsWrites(probe, new Map(), this.parsed.targetSessionAttrs)))
          return (this.known = index);
        refusals.push(`${host}:${port} does not accept writes`);
      } catch (err) {
        refusals.push(`${host}:${port}: ${(err as Error).message}`);
      } finally {
        await probe.end().catch(() => {});
      }
    }
    throw new NoAcceptableServerError(`no server accepts connections for writing (${refusals.join('; ')})`);
  }
}

/** Directs a client that has not connected yet to one host (its URL names the first one). */
function pointAt(client: pg.Client, host: string, port: number): void {
  client.host = host;
  client.port = port;
  // The parameters pg authenticates with (password callbacks, .pgpass) name the host as well.
  const params = (client as unknown as { connectionParameters: HostPort }).connectionParameters;
  params.host = host;
  params.port = port;
}

/**
 * Whether the session may write: not a standby and (for `read-write`) not read-only by default. Uses
 * what the server reported at start-up (PostgreSQL 14 and later) and asks otherwise.
 */
async function acceptsWrites(
  client: pg.Client,
  reported: Map<string, string>,
  attrs: TargetSessionAttrs,
): Promise<boolean> {
  let standby = reported.get('in_hot_standby');
  let readOnly = reported.get('default_transaction_read_only');
  if (standby === undefined || readOnly === undefined) {
    const { rows } = await client.query<{ standby: boolean; read_only: string }>(
      "select pg_is_in_recovery() as standby, current_setting('transaction_read_only') as read_only",
    );
    standby = rows[0]!.standby ? 'on' : 'off';
    readOnly = rows[0]!.read_only;
  }
  return standby === 'off' && (attrs === 'primary' || readOnly === 'off');
}

// ---------------------------------------------------------------------------------------------------
// Classification

/** SQLSTATEs of a server that is going away, starting, a standby, or out of connection slots. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '25006', '53300']);
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|is not queryable|timeout expired/i;

/**
 * True when `err` (or an error it wraps) says the database cannot be reached or is switching over: the
 * request may be retried once it is back. A statement that failed this way may or may not have
 * committed (the connection can be lost while a commit is on its way).
 */
export function isUnavailableError(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (
        UNAVAILABLE_SOCKET_CODES.has(code) ||
        UNAVAILABLE_SQLSTATES.has(code) ||
        /^08[0-9A-Z]{3}$/.test(code)
      )
        return true;
    }
    if (UNAVAILABLE_MESSAGES.test(String((e as { message?: unknown }).message ?? ''))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
