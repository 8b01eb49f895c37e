/**
 * Hardening that applies to every request (docs/security.md):
 *
 * - security headers on every response, errors included: `X-Content-Type-Options: nosniff`,
 *   `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`, `Cross-Origin-Resource-Policy:
 *   same-origin` and a Content-Security-Policy — `default-src 'none'` for JSON, and for the reference
 *   page (`/api/docs`) and the web console (every path outside `/api`), both served entirely by the
 *   service, only the service's own scripts, styles and API;
 * - an optional per-client rate limit (`@fastify/rate-limit`, keyed by client IP, fixed one-minute
 *   window), checked in `onRequest` before authentication, never on
 *   `GET /api/health`; over the limit → `429 RateLimitExceededError {retryAfterSeconds}` + Retry-After;
 * - login throttling: after too many failed logins for one e-mail address or from one IP address
 *   within a window, logins for that e-mail / from that address answer 429 until the window ends
 *   (also with the right password), so passwords cannot be guessed online at speed.
 *
 * Counters are in process memory: with WORKERS > 1 each worker counts separately (the effective limit
 * is multiplied by the worker count); a deployment that needs exact global limits puts them in front.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { nameKey } from '../domain/text.ts';
import { errors } from '../domain/error-catalogue.ts';

export const JSON_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The console (http/console.ts): its own bundles and stylesheets, and requests to its own API only. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function rateLimitExceeded(retryAfterSeconds: number): DomainError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return errors.RateLimitExceededError(
    'Too many requests; retry later',
    { retryAfterSeconds: seconds },
    { 'retry-after': String(seconds) },
  );
}

/** Sets the security headers (and X-Request-Id) on a reply; also used outside the hook pipeline. */
export function setSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const url = request.raw.url ?? '';
  const csp = url.startsWith('/api/docs') ? DOCS_CSP : /^\/api(\/|\?|$)/.test(url) ? JSON_CSP : CONSOLE_CSP;
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cross-origin-resource-policy', 'same-origin');
  reply.header('content-security-policy', csp);
}

function securityHeaders(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  setSecurityHeaders(request, reply);
  done();
}

export interface LoginThrottleOptions {
  /** Failed logins per e-mail address within the window before logins for it answer 429. */
  maxFailuresPerEmail: number;
  /** Failed logins per client IP address within the window before its logins answer 429. */
  maxFailuresPerIp: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  maxFailuresPerEmail: 10,
  maxFailuresPerIp: 100,
  windowSeconds: 15 * 60,
};

interface Window {
  failures: number;
  startedAt: number;
}

/** Fixed-window counters of failed logins per e-mail and per IP address. */
export class LoginThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly options: LoginThrottleOptions | false,
    private readonly now: () => number = Date.now,
  ) {}

  private current(key: string): Window | undefined {
    const w = this.windows.get(key);
    if (w && this.now() - w.startedAt >= this.windowMs()) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private windowMs(): number {
    return this.options ? this.options.windowSeconds * 1000 : 0;
  }

  private keys(email: string, ip: string): Array<[string, number]> {
    if (!this.options) return [];
    return [
      [`e:${nameKey(email)}`, this.options.maxFailuresPerEmail],
      [`i:${ip}`, this.options.maxFailuresPerIp],
    ];
  }

  /** Throws 429 when the e-mail or the IP address has used up its failures in the current window. */
  check(email: string, ip: string): void {
    for (const [key, max] of this.keys(email, ip)) {
      const w = this.current(key);
      if (w && w.failures >= max) {
        throw rateLimitExceeded((w.startedAt + this.windowMs() - this.now()) / 1000);
      }
    }
  }

  /**
   * Checks and counts one attempt as a failure in the same synchronous step, before the password is
   * hashed: concurrent attempts therefore see each other's reservations, and no more attempts than the
   * limit are ever checked within a window. A successful attempt gives its reservation back
   * (`recordSuccess`); a failed one simply keeps it.
   */
  reserve(email: string, ip: string): void {
    this.check(email, ip);
    this.recordFailure(email, ip);
  }

  recordFailure(email: string, ip: string): void {
    if (this.windows.size > 100_000) this.prune();
    for (const [key] of this.keys(email, ip)) {
      const w = this.current(key);
      if (w) w.failures++;
      else this.windows.set(key, { failures: 1, startedAt: this.now() });
    }
  }

  /**
   * A successful login clears the e-mail's counter; with `ip` (the attempt was reserved) it also gives
   * the IP address its reserved attempt back (a success never counts as a failure of the address).
   */
  recordSuccess(email: string, ip?: string): void {
    this.windows.delete(`e:${nameKey(email)}`);
    if (ip === undefined || !this.options) return;
    const w = this.current(`i:${ip}`);
    if (w && w.failures > 0) w.failures--;
  }

  private prune(): void {
    for (const key of [...this.windows.keys()]) this.current(key);
  }
}

export interface SecurityOptions {
  /** Requests per client IP and minute; 0 or undefined disables the limit. */
  rateLimitPerMinute?: number;
}

/** Registers the header hook and the optional rate limit. Call before any other onRequest hook. */
export async function registerSecurity(app: FastifyInstance, options: SecurityOptions): Promise<void> {
  app.addHook('onRequest', securityHeaders);
  const max = options.rateLimitPerMinute ?? 0;
  if (max <= 0) return;
  await app.register(rateLimit, { global: false, hook: 'onRequest' });
  const limiter = app.createRateLimit({ max, timeWindow: 60_000 });
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === '/api/health') return;
    const result = await limiter(request);
    if (!result.isAllowed && result.isExceeded) throw rateLimitExceeded(result.ttlInSeconds);
  });
}
