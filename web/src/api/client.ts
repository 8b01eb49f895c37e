/**
 * The typed API client: openapi-fetch over the types generated from the service's OpenAPI document
 * (schema.ts, `npm run web:client`). Every request carries the session's bearer token; an error
 * answer becomes an ApiError with the body's `_tag`, so screens can show it next to the field it
 * names (lib/errors.ts).
 */
import createClient from 'openapi-fetch';
import { clearSession, readSession } from '../lib/session.ts';
import type { paths } from './schema.ts';

export const api = createClient<paths>({ baseUrl: '' });

api.use({
  onRequest({ request }) {
    const session = readSession();
    if (session) request.headers.set('authorization', `Bearer ${session.token}`);
    return request;
  },
  onResponse({ response, request }) {
    // An expired or revoked session: back to sign-in (the login request itself answers 401 too).
    if (response.status === 401 && request.headers.has('authorization')) {
      clearSession();
      const next = window.location.pathname + window.location.search;
      if (!window.location.pathname.startsWith('/sign-in'))
        window.location.assign(`/sign-in?next=${encodeURIComponent(next)}`);
    }
    return response;
  },
});

export interface Issue {
  path: string;
  message: string;
}

/** An error answer of the API: `{_tag, message, ...fields}`. */
export class ApiError extends Error {
  readonly tag: string;
  readonly status: number;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: unknown) {
    const record =
      body && typeof body === 'object' ? (body as Record<string, unknown>) : { message: String(body) };
    super(typeof record.message === 'string' ? record.message : `Request failed (${status})`);
    this.status = status;
    this.tag = typeof record._tag === 'string' ? record._tag : 'Error';
    this.body = record;
  }

  get issues(): Issue[] {
    return Array.isArray(this.body.issues) ? (this.body.issues as Issue[]) : [];
  }
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer, or an ApiError. */
export async function call<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (err) {
    throw new ApiError(0, {
      _tag: 'NetworkError',
      message: err instanceof Error ? `The service cannot be reached (${err.message})` : 'Network error',
    });
  }
  if (!result.response.ok) throw new ApiError(result.response.status, result.error);
  return result.data as T;
}

/** Fetches every page of a small list (companies, accounts, groups …), at most `max` items. */
export async function fetchAll<T>(
  page: (offset: number, limit: number) => Promise<{ items: T[]; total: number }>,
  max = 5000,
): Promise<T[]> {
  const limit = 100;
  const first = await page(0, limit);
  const items = [...first.items];
  const total = Math.min(first.total, max);
  const offsets: number[] = [];
  for (let offset = limit; offset < total; offset += limit) offsets.push(offset);
  const rest = await Promise.all(offsets.map((offset) => page(offset, limit)));
  for (const r of rest) items.push(...r.items);
  return items;
}
