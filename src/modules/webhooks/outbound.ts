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

interface Target {
  secure: boolean;
  protocol: string;
  /** Without the brackets of an IPv6 literal. */
  hostname: string;
  port: string;
  path: string;
}

function parseTarget(url: string, policy: OutboundPolicy): Target | { refused: string } {
  const refusal = urlRefusal(url, policy);
  if (refusal) return { refused: `URL refused: ${refusal}` };
  const u = new URL(url);
  const hostname = u.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivateNetworks && isIP(hostname) !== 0 && isPrivateAddress(hostname)) {
    return { refused: 'Address refused: private network' };
  }
  return {
    secure: u.protocol === 'https:',
    protocol: u.protocol,
    hostname,
    port: u.port,
    path: `${u.pathname}${u.search}`, // credentials in the URL are refused above
  };
}

export class Outbound {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly targets = new Map<string, Target | { refused: string }>();

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
    const target = this.target(url);
    if ('refused' in target) return Promise.resolve(done(null, target.refused));
    const secure = target.secure;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = (secure ? https : http).request(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          path: target.path,
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

  /**
   * What a URL's sends need, checked and parsed once per URL (an endpoint's deliveries all go to the
   * same one): the refusal of the policy, or the request options. The policy is fixed per instance,
   * and the address a name resolves to is still checked at each new connection (`lookup`).
   */
  private target(url: string): Target | { refused: string } {
    let target = this.targets.get(url);
    if (target) return target;
    target = parseTarget(url, this.policy);
    if (this.targets.size >= 1_000) this.targets.clear(); // bounded: endpoints are few per process
    this.targets.set(url, target);
    return target;
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
