/**
 * buildApp: the Fastify application with every plugin, hook and module route. Used by main.ts and by
 * the tests (through `app.inject`).
 *
 * The shell is a set of named plugins, registered in this order: security headers and the rate limit
 * (http/security.ts), idempotency (http/idempotency.ts), the request pipeline (http/pipeline.ts, which
 * lists the steps of a request), the route registry (http/route-registry.ts), the request log, the API
 * reference (http/docs.ts), the modules' routes (modules/index.ts) and the web console.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import { v4 as uuidv4 } from 'uuid';
import type { Database, Db } from './db/client.ts';

import type { OutboundPolicy } from './domain/webhooks.ts';
import { Access, type RouteAccess } from './access/access.ts';
import type { AuthUser, LookAhead } from './http/auth.ts';
import { type ConsoleServer, registerConsole } from './http/console.ts';
import type { CsvBodyRule } from './http/csv-body.ts';
import { registerApiDocs } from './http/docs.ts';
import { MAX_BODY_BYTES, sendError } from './http/errors.ts';
import { type ClaimedKey, DEFAULT_CLAIM_LEASE_MS, registerIdempotency } from './http/idempotency.ts';
import { registerRequestPipeline } from './http/pipeline.ts';
import { registerRequestLog } from './http/request-log.ts';
import { type PathIdRule, RouteRegistry } from './http/route-registry.ts';
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
import { VERSION } from './version.ts';
import { type ErrorTag, errors } from './domain/error-catalogue.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No authentication (health, register, login, OpenAPI, docs). */
    public?: boolean;
    /** Path parameters that are identifiers: a malformed one answers 404 with this tag. */
    pathIds?: Record<string, PathIdRule>;
    /** The route also takes a `text/csv` body, read into its JSON body by this rule. */
    csvBody?: CsvBodyRule;
    /** A read of the handler made by the session look-up of the request (http/auth.ts). */
    lookAhead?: LookAhead;
    /** Who may call the route (the action, hence the minimum role), for the document and the tests. */
    access?: RouteAccess;
    /**
     * The route's own error tags, beyond those the OpenAPI document derives from its shape (validation,
     * authentication, the named organization, malformed path ids, idempotency, payload size).
     */
    errors?: readonly ErrorTag[];
  }
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    user: AuthUser | null;
    tokenHash: string | null;
    /** The bearer token of a protected request until preValidation has looked it up. */
    pendingToken: string | null;
    /** What the route's look-ahead read with the session (null: nothing was read ahead). */
    lookAhead: unknown;
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
  const registry = new RouteRegistry();
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
      return sendError(registry.malformedUrlError(request), request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  const webhookPolicy = options.webhooks?.policy ?? { allowHttp: false, allowPrivateNetworks: false };
  const dispatcher = new Dispatcher(options.database.db, {
    // A steady load is carried by cycles up to 200 ms apart (see the dispatcher): fewer, larger
    // cycles, for a delivery lag of a few hundred milliseconds under load on either database.
    maxCycleSpacingMs: 200,
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
  app.decorateRequest('lookAhead', null);
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('idempotencyFingerprint', null);
  app.decorateRequest('uploadDigest', null);
  app.decorateRequest('access', {
    getter(this: FastifyRequest) {
      const self = this as FastifyRequest & { _access?: Access };
      if (!self._access) {
        if (!self.user) throw errors.UnauthorizedError('Authentication required', {});
        self._access = new Access(options.database.db, self.user.id);
      }
      return self._access;
    },
  });

  await registerSecurity(app, { rateLimitPerMinute: options.rateLimitPerMinute ?? 0 });
  registerIdempotency(app, options.database.db, options.database.kind, app.deps.idempotencyLeaseMs);
  registerRequestPipeline(app, options.database.db, registry);
  registry.attach(app);
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));

  let webConsole: ConsoleServer | null = null;
  app.setNotFoundHandler((request, reply) => {
    // Paths outside /api belong to the web console, when it is built (http/console.ts).
    if (webConsole?.serve(request, reply)) return reply;
    return sendError(registry.notFoundError(request, reply), request, reply);
  });

  registerRequestLog(app);
  await registerApiDocs(app, VERSION);
  await registerModules(app);
  if (options.consoleDir) webConsole = await registerConsole(app, options.consoleDir);
  return app;
}
