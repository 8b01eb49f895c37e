/**
 * A route declared as data: method, path, documentation, who may call it, the errors it answers, its
 * TypeBox schemas and its handler, in one object. `route(app, {...})` registers it with the shapes every
 * route shares filled in once: the error answers of the response map (`responses`), the success status
 * of a create (201) or a delete (204), and the `config` the pipeline, the OpenAPI document and the route
 * matrices read (`pathIds`, `access`, `errors`, `lookAhead`, `csvBody`, `public`).
 *
 * Beside it, the parts many declarations share, so that each is written once: the addressing of a
 * resource by the identifiers of its path (`inPath`, `byIds`, `byId`, `ORGANIZATION_ID`), the query of a
 * list under it (`OrgPageQuery`), the answer of a create or a delete (`created`, `noContent`), the
 * handler of a route that only names a resource (`forId`) and the activate/deactivate pair
 * (`activationRoutes`).
 */
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler, RouteOptions } from 'fastify';
import type { Access, RouteAccess } from '../access/access.ts';
import type { Db } from '../db/client.ts';
import type { ErrorTag } from '../domain/error-catalogue.ts';
import type { LookAhead } from './auth.ts';
import type { CsvBodyRule } from './csv-body.ts';
import { NoContent, responses } from './responses.ts';
import type { PathIdRule } from './route-registry.ts';
import type { RouteApp } from './route-app.ts';
import { PageQuery, type Static, type TSchema, Type, Uuid } from './schemas.ts';
import type { TString } from 'typebox';

/** `:organizationId` in a path: a malformed one answers 404 OrganizationNotFoundError. */
export const ORGANIZATION_ID: PathIdRule = {
  tag: 'OrganizationNotFoundError',
  field: 'organizationId',
  message: 'Organization not found',
};

/** Path parameters of a resource addressed by id (the id is checked by the route's `pathIds` rule). */
export const IdParams = Type.Object({ id: Type.String() });
/** The query string of a route addressed by id: the organization, optional (the resource names it). */
export const OrgQuery = Type.Object({ organizationId: Type.Optional(Uuid) });
/** The query string of a list under a resource addressed by id: the optional organization and the page. */
export const OrgPageQuery = Type.Object({ organizationId: Type.Optional(Uuid), ...PageQuery });

/**
 * The identifier segments of a path, by their NotFound rules: each is a string parameter, and a
 * malformed one answers 404 with its rule's tag. Spread into a route declaration.
 */
export function inPath<R extends Record<string, PathIdRule>>(rules: R) {
  const params = Object.fromEntries(Object.keys(rules).map((name) => [name, Type.String()]));
  return { pathIds: rules, params: Type.Object(params as { [K in keyof R]: TString }) };
}

/**
 * A resource addressed by the identifiers of its path within an organization: `inPath(rules)` and the
 * optional `organizationId` query (the resource names its organization). Spread into a route declaration.
 */
export function byIds<R extends Record<string, PathIdRule>>(rules: R) {
  return { ...inPath(rules), querystring: OrgQuery };
}

/** A resource addressed by the `id` of its path (`byIds` with that one identifier). */
export function byId(rule: PathIdRule) {
  return byIds({ id: rule });
}

/**
 * The handler of a route that only names a resource addressed by `byId`: the service is called with the
 * database, the caller's access, the path's `id` and the query's `organizationId`.
 */
export function forId<T>(
  db: Db,
  call: (db: Db, access: Access, id: string, organizationId: string | undefined) => T,
) {
  return async (request: { access: Access; params: { id: string }; query: { organizationId?: string } }) =>
    call(db, request.access, request.params.id, request.query.organizationId);
}

/** The answer of a create: 201 with the created resource (the handler returns it). */
export function created<T extends TSchema>(schema: T) {
  return { response: { 201: schema }, status: 201 } as const;
}

/** The answer of a delete: 204 with no body (the handler's value is dropped). */
export const noContent = { response: { 204: NoContent }, status: 204 } as const;

/** The request a handler is given, typed by the route's schemas. */
export type RouteRequest<
  P extends TSchema,
  Q extends TSchema,
  B extends TSchema,
  H extends TSchema,
> = FastifyRequest<{
  Params: Static<P>;
  Querystring: Static<Q>;
  Body: Static<B>;
  Headers: Static<H>;
}>;

/** One route. The schemas type the handler's request; absent ones stay absent from the document. */
export interface RouteDeclaration<
  P extends TSchema,
  Q extends TSchema,
  B extends TSchema,
  H extends TSchema,
> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  tags: string[];
  summary: string;
  description: string;
  /** The action of the permission matrix (its minimum role), or `signedIn`; absent on public routes. */
  access?: RouteAccess;
  /** No authentication. */
  public?: true;
  /** The tags the operation answers beyond the common ones. */
  errors?: readonly ErrorTag[];
  /** Identifiers in the path: a malformed one answers 404 with its rule's tag. */
  pathIds?: Record<string, PathIdRule>;
  lookAhead?: LookAhead;
  csvBody?: CsvBodyRule;
  params?: P;
  querystring?: Q;
  headers?: H;
  body?: B;
  /** The success answers by status; the error answers are added (`responses`). */
  response: Record<number, TSchema>;
  /** Options of the error answers (`public`: those of a route without authentication; `extra` statuses). */
  errorAnswers?: { public?: boolean; extra?: number[] };
  /**
   * 201 or 202: the handler's value is sent with that status; 204: the handler's value is dropped and the
   * answer is empty. Without it the handler answers (its value, or through `reply`).
   */
  status?: 201 | 202 | 204;
  validatorCompiler?: FastifySchemaCompiler<TSchema>;
  bodyLimit?: number;
  /** A check made before the body is validated (e.g. a path value outside a closed list answers 404). */
  preValidation?: (request: RouteRequest<P, Q, B, H>, reply: FastifyReply) => Promise<void>;
  handler: (request: RouteRequest<P, Q, B, H>, reply: FastifyReply) => unknown;
}

/** Registers a declared route. */
export function route<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  H extends TSchema = TSchema,
>(app: RouteApp, declaration: RouteDeclaration<P, Q, B, H>): void {
  const d = declaration;
  const handle = d.handler as (request: FastifyRequest, reply: FastifyReply) => unknown;
  const config = {
    ...(d.public ? { public: true } : {}),
    ...(d.pathIds ? { pathIds: d.pathIds } : {}),
    ...(d.csvBody ? { csvBody: d.csvBody } : {}),
    ...(d.lookAhead ? { lookAhead: d.lookAhead } : {}),
    ...(d.access ? { access: d.access } : {}),
    ...(d.errors ? { errors: d.errors } : {}),
  };
  const schema = {
    tags: d.tags,
    summary: d.summary,
    description: d.description,
    ...(d.params ? { params: d.params } : {}),
    ...(d.querystring ? { querystring: d.querystring } : {}),
    ...(d.headers ? { headers: d.headers } : {}),
    ...(d.body ? { body: d.body } : {}),
    response: responses(d.response, d.errorAnswers),
  };
  const status = d.status;
  const handler =
    status === undefined
      ? handle
      : status === 204
        ? async (request: FastifyRequest, reply: FastifyReply) => {
            await handle(request, reply);
            return reply.code(204).send();
          }
        : async (request: FastifyRequest, reply: FastifyReply) =>
            reply.code(status).send(await handle(request, reply));
  app.route({
    method: d.method,
    url: d.url,
    config,
    schema,
    ...(d.validatorCompiler ? { validatorCompiler: d.validatorCompiler } : {}),
    ...(d.bodyLimit !== undefined ? { bodyLimit: d.bodyLimit } : {}),
    ...(d.preValidation ? { preValidation: d.preValidation } : {}),
    handler,
  } as RouteOptions as never);
}

/**
 * The two routes that switch a resource on and off, `POST <url>/activate` then `POST <url>/deactivate`,
 * alike but for their summary, their description and the value `setActive` is given.
 */
export function activationRoutes<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  H extends TSchema = TSchema,
>(
  app: RouteApp,
  toggle: Omit<RouteDeclaration<P, Q, B, H>, 'method' | 'summary' | 'description' | 'handler'> & {
    /** What is switched, with its article (`an elimination rule`). */
    resource: string;
    description: (active: boolean) => string;
    setActive: (request: RouteRequest<P, Q, B, H>, active: boolean) => unknown;
  },
): void {
  const { url, resource, description, setActive, ...declaration } = toggle;
  for (const active of [true, false]) {
    route(app, {
      ...declaration,
      method: 'POST',
      url: `${url}/${active ? 'activate' : 'deactivate'}`,
      summary: `${active ? 'Activate' : 'Deactivate'} ${resource}`,
      description: description(active),
      handler: async (request) => setActive(request, active),
    });
  }
}
