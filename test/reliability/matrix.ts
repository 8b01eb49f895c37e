/** Sending route-table requests (test/reliability/route-table.ts) and judging their answers. */
import type { Res, TestContext } from '../helpers/app.ts';
import { fillPath } from './openapi.ts';
import type { Req } from './route-table.ts';

export function splitKey(key: string): { method: string; path: string } {
  const i = key.indexOf(' ');
  return { method: key.slice(0, i), path: key.slice(i + 1) };
}

export async function sendReq(t: TestContext, key: string, req: Req, token: string | null): Promise<Res> {
  const { method, path } = splitKey(key);
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query ?? {})) query[k] = String(v);
  return t.req(method, fillPath(path, req.params ?? {}), {
    token,
    query,
    ...(req.body !== undefined ? { body: req.body } : {}),
    ...(req.headers ? { headers: req.headers } : {}),
  });
}

/** Every string of a request (path params, query, body), for "echoed back" checks. */
export function sentStrings(req: Req): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.add(v.toLowerCase());
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(req.params);
  walk(req.query);
  walk(req.body);
  return out;
}

/** Deep copy of the request with every occurrence of `from` replaced by `to`. */
export function replaceDeep<T>(value: T, from: string, to: string): T {
  if (typeof value === 'string') return (value === from ? to : value) as T;
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, from, to)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = replaceDeep(v, from, to);
    return out as T;
  }
  return value;
}

export function mentions(req: Req, id: string): boolean {
  return sentStrings(req).has(id.toLowerCase());
}
