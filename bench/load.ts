/**
 * Load helpers of the benchmark: autocannon for single-request scenarios, a small keep-alive HTTP
 * client for the sequential loops (full journal flow, consolidation runs), latency statistics and
 * the server's resident-set size read from /proc.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
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

export class Client {
  private readonly agent: http.Agent;
  private readonly base: URL;

  constructor(baseUrl: string, maxSockets: number) {
    this.base = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  request(method: string, path: string, token: string | null, body?: unknown): Promise<JsonResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          agent: this.agent,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload !== undefined
              ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, body: parseBody(text) });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
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
