/**
 * Webhook rules without I/O: which URLs and addresses a delivery may go to, when a failed delivery is
 * tried again, and when the service gives up on it.
 */
import { BlockList, isIP } from 'node:net';

/** Address ranges a delivery never reaches unless private networks are allowed. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/** True when `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return PRIVATE.check(bare, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(bare, 'ipv6');
}

export interface OutboundPolicy {
  /** `http://` URLs are accepted (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean;
  /** Private, loopback and link-local addresses are reachable (WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
}

/**
 * Why an endpoint URL is refused, or null when it is acceptable: an absolute `https://` URL (or
 * `http://` when allowed), without credentials, whose host — when it is an IP literal — is public
 * (or private networks are allowed). Host names are checked on the addresses they resolve to, at
 * each connection.
 */
export function urlRefusal(raw: string, policy: OutboundPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    return policy.allowHttp ? 'Must be an https:// or http:// URL' : 'Must be an https:// URL';
  }
  if (url.username !== '' || url.password !== '') return 'Must not contain credentials';
  if (url.hostname === '') return 'Must name a host';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivateNetworks) {
    if (isIP(host) !== 0 && isPrivateAddress(host))
      return 'Private, loopback and link-local addresses are refused';
    if (host === 'localhost' || host.endsWith('.localhost')) return 'Loopback host names are refused';
  }
  return null;
}

export interface RetryPolicy {
  /** Delay after the first failed attempt; each further failure doubles it. */
  baseDelayMs: number;
  /** Longest delay between two attempts. */
  maxDelayMs: number;
  /** A delivery is tried again for at least this long after it was created. */
  retryForMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 5_000,
  maxDelayMs: 3 * 60 * 60 * 1000,
  retryForMs: 24 * 60 * 60 * 1000,
};

/**
 * The delay before the next attempt after `failedAttempts` failures (≥ 1): exponential from the base,
 * capped, with ±25 % jitter (`random` in [0, 1)) so that endpoints recovering together are not hit
 * by every waiting delivery at the same instant.
 */
export function retryDelayMs(failedAttempts: number, policy: RetryPolicy, random: number): number {
  const exponent = Math.min(Math.max(failedAttempts - 1, 0), 40);
  const delay = Math.min(policy.baseDelayMs * 2 ** exponent, policy.maxDelayMs);
  return Math.round(delay * (0.75 + random * 0.5));
}

/**
 * After a failed attempt at `now`: the time of the next attempt, or null when the delivery has been
 * tried for the whole retry window since `createdAt` (the service gives up: status Failed).
 */
export function nextAttemptAfterFailure(
  createdAt: Date,
  now: Date,
  failedAttempts: number,
  policy: RetryPolicy,
  random: number,
): Date | null {
  if (now.getTime() - createdAt.getTime() >= policy.retryForMs) return null;
  return new Date(now.getTime() + retryDelayMs(failedAttempts, policy, random));
}

/** An endpoint whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
