/**
 * The Groupbook TypeScript client: openapi-fetch over the types generated from the service's OpenAPI
 * document (schema.ts, `npm run client:generate`). Paths, parameters, bodies and answers are typed:
 *
 *   const gb = createGroupbookClient({ baseUrl: 'http://127.0.0.1:3000' });
 *   const { token } = await unwrap(gb.POST('/api/auth/login', { body: { email, password } }));
 *   gb.setToken(token);
 *   const orgs = await unwrap(gb.GET('/api/v1/organizations'));
 *
 * `unwrap` answers the body of a 2xx answer and throws a GroupbookError (with the body's `_tag`) for
 * any other status.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };
/** A schema of the document by name, e.g. `Schema<'JournalEntry'>` when it is a named component. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

export interface ClientOptions {
  /** Service address, e.g. `http://127.0.0.1:3000` (no trailing `/api`). */
  baseUrl: string;
  /** Session token from `POST /api/auth/login`. */
  token?: string | null;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export type GroupbookClient = Client<paths> & {
  /** Sets (or clears) the session token sent as `Authorization: Bearer <token>`. */
  setToken(token: string | null): void;
};

export function createGroupbookClient(options: ClientOptions): GroupbookClient {
  let token = options.token ?? null;
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  client.use({
    onRequest({ request }) {
      if (token && !request.headers.has('authorization'))
        request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  });
  return Object.assign(client, {
    setToken(next: string | null) {
      token = next;
    },
  });
}

export interface Issue {
  path: string;
  message: string;
}

/** An error answer of the API: `{_tag, message, ...fields}`, with its status. */
export class GroupbookError extends Error {
  readonly tag: string;
  readonly status: number;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: unknown, request?: string) {
    const record =
      body && typeof body === 'object' ? (body as Record<string, unknown>) : { message: String(body ?? '') };
    const tag = typeof record._tag === 'string' ? record._tag : `HTTP ${status}`;
    super(`${request ? `${request}: ` : ''}${status} ${tag}: ${JSON.stringify(record)}`);
    this.name = 'GroupbookError';
    this.status = status;
    this.tag = tag;
    this.body = record;
  }

  /** The `issues` of a ValidationError (empty for other tags). */
  get issues(): Issue[] {
    return Array.isArray(this.body.issues) ? (this.body.issues as Issue[]) : [];
  }
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The JSON body of a 2xx answer; a GroupbookError for anything else. Reports can also answer CSV or
 * XLSX files (chosen by `format` or the Accept header); the client asks for JSON, so a 2xx body that is
 * not JSON is a GroupbookError too, and the type leaves the file out.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<Exclude<T, string>> {
  const { data, error, response } = await call;
  const url = new URL(response.url || 'http://service/');
  if (!response.ok) throw new GroupbookError(response.status, error, `${url.pathname}`);
  if (typeof data === 'string') {
    throw new GroupbookError(response.status, { message: 'expected a JSON answer' }, url.pathname);
  }
  return data as Exclude<T, string>;
}
