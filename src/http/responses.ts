/**
 * Response-schema helpers: success schemas plus the documented error responses of each route, so the
 * OpenAPI document lists every status a client can receive. Error bodies are `ErrorBody` (open object).
 */
import type { TSchema } from 'typebox';
import { ErrorBody, Type } from './schemas.ts';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'ValidationError or a business-rule refusal (see `_tag`)',
  401: 'UnauthorizedError: missing, malformed, unknown, revoked or expired token',
  403: 'ForbiddenError: not a member of the organization, or role too low',
  404: 'Not found (OrganizationNotFoundError, RouteNotFoundError or the resource tag)',
  405: 'MethodNotAllowedError',
  409: 'Conflict (uniqueness, state or idempotency)',
  413: 'PayloadTooLargeError: body larger than 1 MiB',
  429: 'RateLimitExceededError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError: the database is unreachable',
};

function errorSchema(status: number) {
  return Type.Object(
    { _tag: Type.String(), message: Type.String() },
    { additionalProperties: true, description: ERROR_DESCRIPTIONS[status] ?? 'Error' },
  );
}

/** Response map: the success statuses given plus every error status a protected route can answer. */
export function responses(
  success: Record<number, TSchema>,
  options: { public?: boolean; extra?: number[] } = {},
): Record<number, TSchema> {
  const statuses = options.public
    ? [400, 404, 413, 429, 500, 503]
    : [400, 401, 403, 404, 409, 413, 429, 500, 503];
  const map: Record<number, TSchema> = { ...success };
  for (const s of [...statuses, ...(options.extra ?? [])]) if (!(s in map)) map[s] = errorSchema(s);
  return map;
}

export const NoContent = Type.Null({ description: 'No content' });
export { ErrorBody };
