/**
 * The request pipeline before a handler runs (the step numbers other comments refer to):
 *
 *   onRequest      1 route/method (404/405 via the not-found handler), 2 body size (413),
 *                  3 authentication: the bearer token's form (401)
 *   preValidation  the token looked up together with the organization the request names (and,
 *                  for a route with a look-ahead, the read its handler needs: http/auth.ts),
 *                  4 malformed path identifiers (404 with the resource's tag), body parsing (only for
 *                  routes that take a body), query-string rules, string normalisation
 *   validation     5 JSON Schema, then the checks JSON Schema cannot express (Money digits, codes) and
 *                  each route's cross-field syntax rules (http/validation.ts `withBodyCheck`)
 *   preHandler     6 idempotency (http/idempotency.ts)
 *   handler        7–10 organization, resource, role and business rules (services)
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/client.ts';
import { ValidationError } from '../domain/errors.ts';
import { authenticate, bearerToken } from './auth.ts';
import { isJsonContentType, normalizeQuery, normalizeStrings, parseJsonBody, queryIssues } from './body.ts';
import { digestOf, isCsvContentType, parseCsvBody } from './csv-body.ts';
import { MAX_BODY_BYTES } from './errors.ts';
import { fingerprintOf, idempotencyApplies } from './idempotency.ts';
import { organizationIdOf } from './request-log.ts';
import type { RouteRegistry } from './route-registry.ts';
import { errors } from '../domain/error-catalogue.ts';

/** The request body as a JSON object: content type, JSON syntax, top-level object. */
function readJsonObject(request: FastifyRequest): unknown {
  const raw = typeof request.body === 'string' ? request.body : '';
  let body: unknown = {};
  if (raw.trim() !== '') {
    if (!isJsonContentType(request.headers['content-type'])) {
      throw new ValidationError([{ path: '', message: 'Content-Type must be application/json' }]);
    }
    body = parseJsonBody(raw);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError([{ path: '', message: 'Request body must be a JSON object' }]);
  }
  return body;
}

/** The body as the route reads it (JSON, or CSV for routes that take one), or the error to report. */
function parseBody(request: FastifyRequest): { value: unknown } | { error: unknown } {
  try {
    const csv = request.routeOptions.config?.csvBody;
    if (csv && isCsvContentType(request.headers['content-type'])) {
      const raw = typeof request.body === 'string' ? request.body : '';
      request.uploadDigest = digestOf(raw);
      return { value: parseCsvBody(raw, csv) };
    }
    return { value: readJsonObject(request) };
  } catch (error) {
    return { error };
  }
}

export function registerRequestPipeline(app: FastifyInstance, db: Db, registry: RouteRegistry): void {
  // Bodies are read as text and parsed in preValidation, only by routes that take one.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => {
    done(null, body);
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const length = Number(request.headers['content-length'] ?? 0);
    // Bulk and import routes declare a larger limit of their own.
    const limit = request.is404 ? MAX_BODY_BYTES : (request.routeOptions.bodyLimit ?? MAX_BODY_BYTES);
    if (length > limit) {
      const size = limit === MAX_BODY_BYTES ? '1 MiB' : `${limit / 1_048_576} MiB`;
      throw errors.PayloadTooLargeError(`Request body larger than ${size}`, {
        maxBytes: limit,
      });
    }
    if (request.routeOptions.config?.public || request.is404) return;
    // The token's form is checked now; it is looked up at the start of preValidation, once the body
    // has been read, so that the same query can also read the organization the request names.
    request.pendingToken = bearerToken(request);
  });

  app.addHook('preValidation', async (request, reply) => {
    const schema = request.routeOptions.schema;
    // The body is parsed first, but a malformed one is only reported at step 5, after authentication
    // and the path checks.
    const parsed = schema?.body ? parseBody(request) : null;
    const token = request.pendingToken;
    if (token !== null) {
      request.pendingToken = null;
      const body = parsed && 'value' in parsed ? parsed.value : null;
      const organizationId = organizationIdOf(request, body);
      const lookAhead = request.routeOptions.config?.lookAhead;
      const { user, tokenHash, organization, ahead } = await authenticate(
        db,
        token,
        organizationId,
        lookAhead ? { lookAhead, params: request.params, body } : null,
      );
      request.user = user;
      request.tokenHash = tokenHash;
      request.lookAhead = ahead;
      if (organization) request.access.prime(organization.organizationId, organization);
    }
    registry.checkPath(request, reply);
    if (schema && !schema.hide) {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const issues = queryIssues(schema.querystring as never, query);
      if (issues.length > 0) throw new ValidationError(issues);
      if (schema.querystring) normalizeQuery(schema.querystring as never, query);
    }
    if (!schema?.body || parsed === null) {
      request.body = undefined;
      return;
    }
    if ('error' in parsed) throw parsed.error;
    const body = parsed.value as object;
    if (idempotencyApplies(request) && request.headers['idempotency-key'] !== undefined) {
      request.idempotencyFingerprint = fingerprintOf(request, body);
    }
    request.body = normalizeStrings(schema.body as never, body);
  });
}
