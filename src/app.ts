/**
 * buildApp: the Fastify application with every plugin, hook and module route. Used by main.ts and by
 * the tests (through `app.inject`).
 *
 * Request pipeline, step by step (other comments refer to these step numbers):
 *   onRequest      1 route/method (404/405 via the not-found handler), 2 body size (413),
 *                  3 authentication (401)
 *   preValidation  4 malformed path identifiers (404 with the resource's tag), body parsing (only for
 *                  routes that take a body), query-string rules, string normalisation
 *   validation     5 JSON Schema, then the checks JSON Schema cannot express (Money digits, codes) and
 *                  each route's cross-field syntax rules (http/validation.ts `withBodyCheck`)
 *   preHandler     6 idempotency
 *   handler        7–10 organization, resource, role and business rules (services)
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  LogController,
  type RouteOptions,
} from 'fastify';
import { v4 as uuidv4 } from 'uuid';
import type { Database, Db } from './db/client.ts';
import { markScope } from './db/commit-marks.ts';
import { DomainError, ValidationError } from './domain/errors.ts';
import { Access } from './http/access.ts';
import { type AuthUser, authenticate, bearerToken } from './http/auth.ts';
import {
  isJsonContentType,
  normalizeQuery,
  normalizeStrings,
  parseJsonBody,
  queryIssues,
} from './http/body.ts';
import { type CsvBodyRule, digestOf, isCsvContentType, parseCsvBody } from './http/csv-body.ts';
import { MAX_BODY_BYTES, sendError } from './http/errors.ts';
import {
  type ClaimedKey,
  claimKey,
  completeKey,
  fingerprintOf,
  ClaimLeases,
  DEFAULT_CLAIM_LEASE_MS,
  idempotencyApplies,
  idempotencyKeyOf,
  releaseOrphanedClaims,
} from './http/idempotency.ts';
import { type ConsoleServer, registerConsole } from './http/console.ts';
import { createOpenApiHooks } from './http/openapi.ts';
import { organizationIdOf, registerRequestLog } from './http/request-log.ts';
import { isUuid } from './http/schemas.ts';
import {
  DEFAULT_LOGIN_THROTTLE,
  LoginThrottle,
  type LoginThrottleOptions,
  registerSecurity,
  setSecurityHeaders,
} from './http/security.ts';
import { lazySerializerFactory, validatorCompiler } from './http/validation.ts';
import { DEFAULT_RUN_LEASE_MS } from './modules/consolidation/runs.lease.ts';
import { registerModules } from './modules/index.ts';
import { Dispatcher, type DispatcherOptions } from './modules/webhooks/dispatcher.ts';
import type { OutboundPolicy } from './domain/webhooks.ts';
import { VERSION } from './version.ts';

export interface PathIdRule {
  /** NotFound tag answered for a malformed segment, e.g. `JournalEntryNotFoundError`. */
  tag: string;
  /** Field of that error carrying the raw segment, e.g. `entryId`. */
  field: string;
  message?: string;
  /** Extra fields of the NotFound error, taken from other path parameters (e.g. `{groupId: 'id'}`). */
  extra?: Record<string, string>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No authentication (health, register, login, OpenAPI, docs). */
    public?: boolean;
    /** Path parameters that are identifiers: a malformed one answers 404 with this tag. */
    pathIds?: Record<string, PathIdRule>;
    /** The route also takes a `text/csv` body, read into its JSON body by this rule. */
    csvBody?: CsvBodyRule;
  }
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    user: AuthUser | null;
    tokenHash: string | null;
    /** The bearer token of a protected request until preValidation has looked it up. */
    pendingToken: string | null;
    idempotencyClaim: ClaimedKey | null;
    idempotencyFingerprint: string | null;
    /** SHA-256 of a CSV body as uploaded (routes with `csvBody`), else null. */
    uploadDigest: string | null;
    /** The authorization path for this request's caller . */
    access: Access;
  }
}

export interface AppDeps {
  database: Database;
  db: Db;
  version: string;
  /** Failed-login counters (http/security.ts). */
  loginThrottle: LoginThrottle;
  /** Outbound policy of webhook URLs and the dispatcher (started only when configured). */
  webhooks: { policy: OutboundPolicy; dispatcher: Dispatcher };
  /** Lease of the consolidation runs this process executes (modules/consolidation/runs.lease.ts). */
  runLeaseMs: number;
  /** Lease of the Idempotency-Key claims this process executes (http/idempotency.ts). */
  idempotencyLeaseMs: number;
}

export interface BuildOptions {
  database: Database;
  logLevel?: string;
  /** Pretty logs are never used; false disables logging (tests). */
  logger?: boolean;
  /** Per-client requests per minute (RATE_LIMIT_PER_MINUTE); 0 or undefined: no limit. */
  rateLimitPerMinute?: number;
  /** Login throttling; false disables it. Default: DEFAULT_LOGIN_THROTTLE. */
  loginThrottle?: LoginThrottleOptions | false;
  /** The built web console (dist/web) to serve at `/`; omitted or null: none (the API alone). */
  consoleDir?: string | null;
  /**
   * Webhooks: the outbound policy (default: https only, public addresses only) and whether this
   * process runs the dispatcher (default: no; the service's main starts it, tests that need it too).
   * The dispatcher stops when the app closes.
   */
  webhooks?: { policy?: OutboundPolicy; dispatch?: boolean; dispatcher?: Partial<DispatcherOptions> };
  /** RUN_LEASE_SECONDS, in milliseconds (default 60 s). */
  runLeaseMs?: number;
  /** IDEMPOTENCY_LEASE_SECONDS, in milliseconds (default 60 s). */
  idempotencyLeaseMs?: number;
}

export type App = FastifyInstance;

const REQUEST_ID_RE = /^[\x21-\x7E]{1,128}$/;

export async function buildApp(options: BuildOptions): Promise<App> {
  const app = Fastify({
    logger: options.logger === false ? false : { level: options.logLevel ?? 'info' },
    // one line per request instead: http/request-log.ts
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: MAX_BODY_BYTES,
    exposeHeadRoutes: false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: false },
    requestIdHeader: false,
    genReqId: (req) => {
      const header = req.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID_RE.test(header) ? header : uuidv4();
    },
    ajv: { customOptions: { strict: false } },
    schemaController: {
      compilersFactory: {
        buildSerializer: lazySerializerFactory(),
      },
    },
    return503OnClosing: false,
    // Undecodable URLs and over-long path segments: the API's 404s, never Fastify's own bodies.
    frameworkErrors: (_err, request, reply) => {
      setSecurityHeaders(request, reply);
      return sendError(malformedUrlError(request), request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  const webhookPolicy = options.webhooks?.policy ?? { allowHttp: false, allowPrivateNetworks: false };
  const dispatcher = new Dispatcher(options.database.db, {
    ...options.webhooks?.dispatcher,
    outbound: webhookPolicy,
    onError: (err) => app.log.error({ err }, 'webhook dispatcher'),
  });
  if (options.webhooks?.dispatch) {
    app.addHook('onReady', async () => dispatcher.start());
  }
  app.addHook('onClose', async () => dispatcher.stop());
  app.decorate('deps', {
    database: options.database,
    db: options.database.db,
    version: VERSION,
    loginThrottle: new LoginThrottle(options.loginThrottle ?? DEFAULT_LOGIN_THROTTLE),
    webhooks: { policy: webhookPolicy, dispatcher },
    runLeaseMs: options.runLeaseMs ?? DEFAULT_RUN_LEASE_MS,
    idempotencyLeaseMs: options.idempotencyLeaseMs ?? DEFAULT_CLAIM_LEASE_MS,
  });
  app.decorateRequest('user', null);
  app.decorateRequest('tokenHash', null);
  app.decorateRequest('pendingToken', null);
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('idempotencyFingerprint', null);
  app.decorateRequest('uploadDigest', null);
  app.decorateRequest('access', {
    getter(this: FastifyRequest) {
      const self = this as FastifyRequest & { _access?: Access };
      if (!self._access) {
        if (!self.user) throw new DomainError(401, 'UnauthorizedError', 'Authentication required', {});
        self._access = new Access(options.database.db, self.user.id);
      }
      return self._access;
    },
  });

  // Bodies are read as text and parsed in preValidation, only by routes that take one.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => {
    done(null, body);
  });

  // Route registry: 405 detection and "static before parameter".
  const registry: Array<{ method: string; url: string; re: RegExp; pathIds?: Record<string, PathIdRule> }> =
    [];
  const staticPaths = new Map<string, Set<string>>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const url = route.url.replace(/\/$/, '') || '/';
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const isDocs = url.startsWith('/api/docs');
    if (isDocs || url === '/api/openapi.json') {
      route.config = { ...(route.config ?? {}), public: true };
    }
    if (!route.config?.public && route.schema && !route.schema.hide) {
      route.schema.security = [{ bearerAuth: [] }];
    }
    if (isDocs) return;
    for (const method of methods) {
      const re = new RegExp(
        `^${url
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/:[A-Za-z0-9_]+/g, '[^/]+')
          .replace(/\*/g, '.*')}$`,
      );
      registry.push({ method, url, re, ...(route.config?.pathIds ? { pathIds: route.config.pathIds } : {}) });
      if (!url.includes(':')) {
        const set = staticPaths.get(url) ?? new Set<string>();
        set.add(method);
        staticPaths.set(url, set);
      }
    }
  });

  // Security headers and the optional rate limit (before authentication).
  await registerSecurity(app, { rateLimitPerMinute: options.rateLimitPerMinute ?? 0 });

  // A request that may claim an Idempotency-Key runs in a scope of its own, in which its writes mark
  // the key committed (db/commit-marks.ts); the claim is added to the scope in preHandler.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['idempotency-key'] !== undefined && idempotencyApplies(request))
      markScope.run({ claims: [] }, done);
    else done();
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const length = Number(request.headers['content-length'] ?? 0);
    // Bulk and import routes declare a larger limit of their own.
    const limit = request.is404 ? MAX_BODY_BYTES : (request.routeOptions.bodyLimit ?? MAX_BODY_BYTES);
    if (length > limit) {
      const size = limit === MAX_BODY_BYTES ? '1 MiB' : `${limit / 1_048_576} MiB`;
      throw new DomainError(413, 'PayloadTooLargeError', `Request body larger than ${size}`, {
        maxBytes: limit,
      });
    }
    if (request.routeOptions.config?.public || request.is404) return;
    // The token's form is checked now; it is looked up at the start of preValidation, once the body
    // has been read, so that the same query can also read the organization the request names.
    request.pendingToken = bearerToken(request);
  });

  app.addHook('preValidation', async (request, reply) => {
    const config = request.routeOptions.config;
    const params = (request.params ?? {}) as Record<string, string>;
    const schema = request.routeOptions.schema;
    // The body is parsed first, but a malformed one is only reported at step 5, after authentication
    // and the path checks.
    let parsed: { value: unknown } | { error: unknown } | null = null;
    if (schema?.body) {
      try {
        const csv = config?.csvBody;
        if (csv && isCsvContentType(request.headers['content-type'])) {
          const raw = typeof request.body === 'string' ? request.body : '';
          request.uploadDigest = digestOf(raw);
          parsed = { value: parseCsvBody(raw, csv) };
        } else parsed = { value: readJsonObject(request) };
      } catch (error) {
        parsed = { error };
      }
    }
    const token = request.pendingToken;
    if (token !== null) {
      request.pendingToken = null;
      const organizationId = organizationIdOf(request, parsed && 'value' in parsed ? parsed.value : null);
      const { user, tokenHash, organization } = await authenticate(
        options.database.db,
        token,
        organizationId,
      );
      request.user = user;
      request.tokenHash = tokenHash;
      if (organization) request.access.prime(organization.organizationId, organization);
    }
    if (config?.pathIds) {
      const path = request.url.split('?', 1)[0]!.replace(/\/$/, '');
      const methods = staticPaths.get(path);
      if (methods && !methods.has(request.method)) {
        const allowed = [...methods].sort();
        reply.header('allow', allowed.join(', '));
        throw new DomainError(
          405,
          'MethodNotAllowedError',
          `${request.method} is not supported on this path`,
          {
            method: request.method,
            allowedMethods: allowed,
          },
        );
      }
      for (const [name, rule] of Object.entries(config.pathIds)) {
        const value = params[name];
        if (value !== undefined && !isUuid(value)) {
          const extra: Record<string, unknown> = {};
          for (const [field, param] of Object.entries(rule.extra ?? {})) {
            const v = params[param] ?? null;
            extra[field] = v !== null && isUuid(v) ? v.toLowerCase() : v;
          }
          throw new DomainError(404, rule.tag, rule.message ?? 'Not found', {
            [rule.field]: value,
            ...extra,
          });
        }
      }
    }
    for (const [name, value] of Object.entries(params)) {
      if (config?.pathIds?.[name] && isUuid(value)) params[name] = value.toLowerCase();
    }
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

  // Claims in progress hold a lease this process renews (http/idempotency.ts); on the embedded database
  // the claims a stopped process left in progress are released at start-up.
  const claimLeases = new ClaimLeases(options.database.db, app.deps.idempotencyLeaseMs, (err) =>
    app.log.warn({ err }, 'could not renew Idempotency-Key leases'),
  );
  app.addHook('onReady', async () => {
    if (options.database.kind !== 'pglite') return;
    const released = await releaseOrphanedClaims(options.database.db);
    if (released > 0)
      app.log.warn({ released }, 'released Idempotency-Key claims left running by a stopped process');
  });
  app.addHook('onClose', async () => claimLeases.close());

  app.addHook('preHandler', async (request, reply) => {
    if (request.user && idempotencyApplies(request)) {
      const key = idempotencyKeyOf(request);
      if (key !== undefined) {
        const fingerprint = request.idempotencyFingerprint ?? fingerprintOf(request, undefined);
        request.idempotencyClaim = await claimKey(
          options.database.db,
          request.user.id,
          key,
          fingerprint,
          reply,
          claimLeases.leaseMs,
        );
        if (request.idempotencyClaim === null) return reply;
        claimLeases.add(request.idempotencyClaim);
        markScope.getStore()?.claims.push(request.idempotencyClaim);
      }
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (claim) {
      request.idempotencyClaim = null;
      claimLeases.delete(claim);
      // The request's own writes are over: the completion below is not one of them.
      const scope = markScope.getStore();
      if (scope) scope.claims = [];
      const body = typeof payload === 'string' ? payload : payload == null ? null : String(payload);
      const failed = (err: unknown) => request.log.error({ err }, 'could not store idempotent response');
      await completeKey(options.database.db, claim, reply.statusCode, body, failed).catch(failed);
    }
    return payload;
  });

  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));

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

  /**
   * A URL the router cannot decode (bad percent-encoding) or with an over-long segment: on a route
   * with identifier segments, the NotFound of the first segment that is not a UUID, echoing it raw;
   * otherwise no route matches it (RouteNotFoundError).
   */
  function malformedUrlError(request: FastifyRequest): DomainError {
    const rawPath = (request.raw.url ?? '').split('?', 1)[0]!;
    const path = rawPath.length > 1 ? rawPath.replace(/\/$/, '') : rawPath;
    const route = registry.find((r) => r.method === request.method && r.pathIds && r.re.test(path));
    if (route?.pathIds) {
      const names = route.url.split('/');
      const values = path.split('/');
      const raw: Record<string, string> = {};
      names.forEach((n, i) => {
        if (n.startsWith(':')) raw[n.slice(1)] = values[i] ?? '';
      });
      for (const [name, rule] of Object.entries(route.pathIds)) {
        const value = raw[name];
        if (value === undefined || isUuid(value)) continue;
        const extra: Record<string, unknown> = {};
        for (const [field, param] of Object.entries(rule.extra ?? {})) {
          const v = raw[param] ?? null;
          extra[field] = v !== null && isUuid(v) ? v.toLowerCase() : v;
        }
        return new DomainError(404, rule.tag, rule.message ?? 'Not found', { [rule.field]: value, ...extra });
      }
    }
    return new DomainError(404, 'RouteNotFoundError', 'No route matches this path', {
      method: request.method,
      path: rawPath,
    });
  }

  let webConsole: ConsoleServer | null = null;
  app.setNotFoundHandler((request, reply) => {
    // Paths outside /api belong to the web console, when it is built (http/console.ts).
    if (webConsole?.serve(request, reply)) return reply;
    const path = request.url.split('?', 1)[0]!;
    const normalized = path.length > 1 ? path.replace(/\/$/, '') : path;
    const methods = [...new Set(registry.filter((r) => r.re.test(normalized)).map((r) => r.method))].sort();
    if (methods.length > 0) {
      reply.header('allow', methods.join(', '));
      return sendError(
        new DomainError(405, 'MethodNotAllowedError', `${request.method} is not supported on this path`, {
          method: request.method,
          allowedMethods: methods,
        }),
        request,
        reply,
      );
    }
    return sendError(
      new DomainError(404, 'RouteNotFoundError', 'No route matches this path', {
        method: request.method,
        path,
      }),
      request,
      reply,
    );
  });

  registerRequestLog(app);
  await app.register(swagger, {
    ...createOpenApiHooks(),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Groupbook API',
        version: VERSION,
        // Replaced by the full description when the document is generated (http/openapi.ts).
        description: 'Multi-company, multi-currency accounting and group consolidation (ASC 810, ASC 830).',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Session token from login' },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: false,
    theme: { title: 'Groupbook API reference' },
    uiConfig: { docExpansion: 'none' },
  });

  await registerModules(app);
  if (options.consoleDir) webConsole = await registerConsole(app, options.consoleDir);
  return app;
}
