/**
 * Outbound HTTP of the webhook deliveries: one POST, a hard timeout, no redirects followed (a 3xx is a
 * failed attempt like any other non-2xx), and an address check on what a host name resolves to at
 * each new connection — a name that resolves to a private, loopback or link-local address is refused
 * unless private networks are allowed, so DNS cannot be used to reach the service's own network.
 * Connections are kept alive per origin.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress, type OutboundPolicy, urlRefusal } from '../../domain/webhooks.ts';

export interface SendResult {
  /** The response status, or null when none came (refused, connection error, timeout). */
  status: number | null;
  ok: boolean;
  durationMs: number;
  error: string | null;
}

class RefusedAddressError extends Error {}

export class Outbound {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(
    readonly policy: OutboundPolicy,
    private readonly timeoutMs = 10_000,
  ) {
    const lookup = this.lookup.bind(this) as LookupFunction;
    const options = { keepAlive: true, maxSockets: 16, lookup };
    this.httpAgent = new http.Agent(options);
    this.httpsAgent = new https.Agent(options);
  }

  /** dns.lookup, refusing private results unless they are allowed. */
  private lookup(
    hostname: string,
    options: dns.LookupOptions,
    callback: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void,
  ): void {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as dns.LookupAddress[];
      if (!this.policy.allowPrivateNetworks && list.some((a) => isPrivateAddress(a.address))) {
        return callback(new RefusedAddressError(`${hostname} resolves to a private address`), '');
      }
      if (list.length === 0) return callback(new Error(`${hostname} has no address`), '');
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  }

  /** POSTs `body` to `url` with `headers`; never throws. */
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const done = (status: number | null, error: string | null): SendResult => ({
      status,
      ok: status !== null && status >= 200 && status < 300,
      durationMs: Math.round(performance.now() - started),
      error,
    });
    const refusal = urlRefusal(url, this.policy);
    if (refusal) return Promise.resolve(done(null, `URL refused: ${refusal}`));
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.policy.allowPrivateNetworks && isIP(host) !== 0 && isPrivateAddress(host)) {
      return Promise.resolve(done(null, 'Address refused: private network'));
    }
    const secure = target.protocol === 'https:';
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = (secure ? https : http).request(
        target,
        {
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'Groupbook-Webhooks/1',
            ...headers,
          },
        },
        (response) => {
          const status = response.statusCode ?? null;
          // The body is not needed; reading it to the end keeps the connection reusable.
          response.on('data', () => {});
          response.on('end', () =>
            finish(done(status, status !== null && status >= 200 && status < 300 ? null : `HTTP ${status}`)),
          );
          response.on('error', (err) => finish(done(status, err.message)));
        },
      );
      const timer = setTimeout(() => {
        request.destroy(new Error(`No response within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      request.on('error', (err) => {
        const message = err instanceof RefusedAddressError ? `Address refused: ${err.message}` : err.message;
        finish(done(null, message || 'Connection failed'));
      });
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
