/**
 * One JSON log line per request, written when the response has been sent (Fastify's own
 * "incoming request" / "request completed" lines are disabled with `disableRequestLogging`):
 *
 *   {"level":30,"time":…,"pid":…,"hostname":…,"reqId":"…","method":"POST","url":"/api/v1/companies",
 *    "route":"/api/v1/companies","userId":"…","organizationId":"…","statusCode":201,
 *    "responseTimeMs":12.4,"msg":"request"}
 *
 * `reqId` is the request id (the `X-Request-Id` header when the client sent a valid one, echoed in the
 * response). `userId` is null for public or unauthenticated requests; `organizationId` is the
 * organization the request names in its path, query or body, or null.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUuid } from './schemas.ts';

function pick(source: unknown, name: string): string | null {
  if (source === null || typeof source !== 'object') return null;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' && isUuid(value) ? value.toLowerCase() : null;
}

/**
 * The organization a request names (path, query, then body), or null. `body` is the parsed body when
 * `request.body` is not parsed yet.
 */
export function organizationIdOf(request: FastifyRequest, body: unknown = request.body): string | null {
  const route = request.routeOptions.url ?? '';
  return (
    pick(request.params, 'organizationId') ??
    (route.startsWith('/api/v1/organizations/:id') ? pick(request.params, 'id') : null) ??
    pick(request.query, 'organizationId') ??
    pick(body, 'organizationId')
  );
}

export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url.split('?', 1)[0],
        route: request.routeOptions.url ?? null,
        userId: request.user?.id ?? null,
        organizationId: organizationIdOf(request),
        statusCode: reply.statusCode,
        responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
