/**
 * Load helpers of the benchmark: autocannon for single-request scenarios, a small keep-alive HTTP
 * client for the sequential loops (full journal flow, consolidation runs), latency statistics and
 * the server's resident-set size read from /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface Measurement {
  scenario: string;
  connections: number | null;
  /** Requests (or flows, transactions) per second. */
  rate: number | null;
  p50: number | null;
  p99: number | null;
  errors: number;
  /** Peak server RSS in MB during the scenario (all server processes). */
  rssMb: number | null;
  /**
   * CPU time of the server's processes during the scenario divided by `count` (ms per request, or per
   * flow): unlike the rate, it barely moves with the machine's other load.
   */
  cpuMsPerRequest?: number | null;
  /**
   * CPU time of the server's main thread (its event loop) per request: what bounds the rate of a
   * server on one event loop when other cores are free (V8's background compilers and the garbage
   * collector's helper threads left out).
   */
  mainThreadMsPerRequest?: number | null;
  count: number;
  note?: string;
}

// ---------------------------------------------------------------------------------------------------
// RSS

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** RSS of a process and all its descendants (cluster workers), in kB. */
export function treeRssKb(pid: number): number {
  let total = rssKb(pid);
  for (const child of childPids(pid)) total += treeRssKb(child);
  return total;
}

/** CPU time (user + system) of one process, in ms; 0 when it is gone. */
function cpuMs(pid: number, path = `/proc/${pid}/stat`): number {
  try {
    const stat = readFileSync(path, 'utf8');
    // fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks of 10 ms (CLK_TCK 100)
  } catch {
    return 0;
  }
}

/**
 * CPU time of a process's main thread, in ms: for a Node.js server, its event loop (which serves the
 * requests), without its worker threads and V8's helper threads.
 */
export function mainThreadCpuMs(pid: number): number {
  return cpuMs(pid, `/proc/${pid}/task/${pid}/stat`);
}

/** CPU time of a process and all its descendants, in ms. */
export function treeCpuMs(pid: number): number {
  let total = cpuMs(pid);
  for (const child of childPids(pid)) total += treeCpuMs(child);
  return total;
}

/**
 * CPU time of the PostgreSQL backends connected to `database` on this machine, per backend pid, in ms
 * (read from /proc: empty when the server runs elsewhere).
 */
export function backendCpuMs(database: string): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const d of pids) {
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      // a backend's title: `postgres: [cluster: ]user database host(port) state`
      if (cmd.startsWith('postgres: ') && cmd.includes(` ${database} `)) out.set(Number(d), cpuMs(Number(d)));
    } catch {
      // gone
    }
  }
  return out;
}

/** Samples the RSS of `pid`'s process tree every 100 ms until `stop()`; returns the peak in MB. */
export function sampleRss(pid: number): { stop(): number } {
  let peak = treeRssKb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssKb(pid));
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, treeRssKb(pid));
      return Math.round(peak / 1024);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Statistics

export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const round = (v: number | null, digits = 1): number | null =>
  v === null ? null : Math.round(v * 10 ** digits) / 10 ** digits;

// ---------------------------------------------------------------------------------------------------
// autocannon

export interface CannonInput {
  url: string;
  connections: number;
  seconds: number;
  method?: string;
  token?: string;
  body?: unknown;
}

export async function cannon(input: CannonInput) {
  const headers: Record<string, string> = {};
  if (input.token) headers.authorization = `Bearer ${input.token}`;
  if (input.body !== undefined) headers['content-type'] = 'application/json';
  const result = await autocannon({
    url: input.url,
    connections: input.connections,
    duration: input.seconds,
    method: input.method ?? 'GET',
    headers,
    ...(input.body !== undefined ? { body: JSON.stringify(input.body) } : {}),
    timeout: 30,
  });
  return {
    rate: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    count: result.requests.total,
  };
}

// ---------------------------------------------------------------------------------------------------
// Keep-alive JSON client

export interface JsonResponse {
  status: number;
  body: Record<string, unknown>;
}

function parseBody(text: string): Record<string, unknown> {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { raw: text };
  }
}

/**
 * A minimal keep-alive HTTP/1.1 client for the sequential loops: requests are written as one string
 * on a raw socket and responses read by `Content-Length` (the service always sends it), so the load
 * generator, which shares the machine's cores with the server and the database, spends as little CPU
 * per request as autocannon does (Node's `http` client costs several times more).
 */
export class Client {
  private readonly host: string;
  private readonly port: number;
  private readonly free: Connection[] = [];
  private readonly all = new Set<Connection>();

  constructor(
    baseUrl: string,
    private readonly maxSockets: number,
  ) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  async request(method: string, path: string, token: string | null, body?: unknown): Promise<JsonResponse> {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n` +
      (token ? `Authorization: Bearer ${token}\r\n` : '') +
      (body === undefined ? '' : 'Content-Type: application/json\r\n') +
      `Content-Length: ${Buffer.byteLength(payload)}\r\n\r\n`;
    const connection = this.free.pop() ?? (await this.open());
    try {
      const res = await connection.send(head + payload);
      this.free.push(connection);
      return { status: res.status, body: parseBody(res.text) };
    } catch (err) {
      connection.socket.destroy();
      this.all.delete(connection);
      throw err;
    }
  }

  private open(): Promise<Connection> {
    if (this.all.size >= this.maxSockets) throw new Error('more concurrent requests than sockets');
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: this.host, port: this.port, noDelay: true }, () => {
        socket.off('error', reject);
        const connection = new Connection(socket);
        this.all.add(connection);
        resolve(connection);
      });
      socket.once('error', reject);
    });
  }

  close(): void {
    for (const c of this.all) c.socket.destroy();
    this.all.clear();
    this.free.length = 0;
  }
}

/** One keep-alive socket with at most one request in flight. */
class Connection {
  private chunks: Buffer[] = [];
  private received = 0;
  /** bytes needed before parsing can succeed: 0 until a head was read, then head + body */
  private needed = 0;
  private waiting: {
    resolve: (r: { status: number; text: string }) => void;
    reject: (e: Error) => void;
  } | null = null;

  constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      // A large answer (a consolidation run's is over a megabyte) comes in many chunks: they are
      // kept as a list and joined once, when the whole body is in, so that the generator does not
      // copy the body again for each chunk (that copying would count in the measured latency).
      this.chunks.push(chunk);
      this.received += chunk.length;
      if (this.received >= this.needed) this.parse();
    });
    const fail = (err?: Error) => {
      const w = this.waiting;
      this.waiting = null;
      w?.reject(err ?? new Error('connection closed'));
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
  }

  send(text: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(text);
    });
  }

  private parse(): void {
    if (!this.waiting) return;
    const buffer = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.received);
    this.chunks = [buffer];
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = buffer.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    const m = /\r\ncontent-length: *(\d+)/i.exec(head);
    const length = m ? Number(m[1]) : 0;
    this.needed = end + 4 + length;
    if (buffer.length < this.needed) return;
    const text = buffer.toString('utf8', end + 4, this.needed);
    const rest = buffer.subarray(this.needed);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.received = rest.length;
    this.needed = 0;
    const w = this.waiting;
    this.waiting = null;
    w.resolve({ status, text });
  }
}

/**
 * Runs `iteration` in `connections` concurrent sequential loops for `seconds` (or until `maxCount`
 * iterations completed). An iteration returns true when it succeeded. Returns rate (iterations per
 * second) and latency percentiles of the iterations in ms.
 */
export async function loop(
  connections: number,
  seconds: number,
  iteration: () => Promise<boolean>,
  maxCount = Number.POSITIVE_INFINITY,
) {
  const latencies: number[] = [];
  let errors = 0;
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline && started < maxCount) {
      started++;
      const t = performance.now();
      const ok = await iteration().catch(() => false);
      if (ok) latencies.push(performance.now() - t);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    count: latencies.length,
  };
}
