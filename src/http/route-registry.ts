/**
 * The route registry: every registered method and path, so that the service can tell "no such path"
 * (404 RouteNotFoundError) from "no such method on this path" (405 MethodNotAllowedError with an
 * `Allow` header), answer a static path before a parameterised one, and name the NotFound of a
 * malformed identifier segment even when the router cannot decode the URL.
 *
 * Routes declare their identifier segments in `config.pathIds`; the registry reads them as routes are
 * added (`onRoute`), so nothing else needs to know the list of routes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { isUuid } from './schemas.ts';
import { errors } from '../domain/error-catalogue.ts';

export interface PathIdRule {
  /** NotFound tag answered for a malformed segment, e.g. `JournalEntryNotFoundError`. */
  tag: string;
  /** Field of that error carrying the raw segment, e.g. `entryId`. */
  field: string;
  message?: string;
  /** Extra fields of the NotFound error, taken from other path parameters (e.g. `{groupId: 'id'}`). */
  extra?: Record<string, string>;
}

interface Entry {
  method: string;
  url: string;
  re: RegExp;
  pathIds?: Record<string, PathIdRule>;
}

/** The NotFound of the first identifier segment that is not a UUID, or null when all are. */
export function malformedPathId(
  rules: Record<string, PathIdRule>,
  params: Record<string, string | undefined>,
): DomainError | null {
  for (const [name, rule] of Object.entries(rules)) {
    const value = params[name];
    if (value === undefined || isUuid(value)) continue;
    const extra: Record<string, unknown> = {};
    for (const [field, param] of Object.entries(rule.extra ?? {})) {
      const v = params[param] ?? null;
      extra[field] = v !== null && isUuid(v) ? v.toLowerCase() : v;
    }
    return new DomainError(404, rule.tag, rule.message ?? 'Not found', { [rule.field]: value, ...extra });
  }
  return null;
}

function methodNotAllowed(method: string, allowed: string[], reply: FastifyReply): DomainError {
  reply.header('allow', allowed.join(', '));
  return errors.MethodNotAllowedError(`${method} is not supported on this path`, {
    method,
    allowedMethods: allowed,
  });
}

const trimmed = (path: string) => (path.length > 1 ? path.replace(/\/$/, '') : path);

export class RouteRegistry {
  private readonly entries: Entry[] = [];
  private readonly staticPaths = new Map<string, Set<string>>();

  /** Records the routes as they are added; documentation routes are public and not recorded. */
  attach(app: FastifyInstance): void {
    app.addHook('onRoute', (route: RouteOptions) => this.add(route));
  }

  private add(route: RouteOptions): void {
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
      this.entries.push({
        method,
        url,
        re,
        ...(route.config?.pathIds ? { pathIds: route.config.pathIds } : {}),
      });
      if (!url.includes(':')) {
        const set = this.staticPaths.get(url) ?? new Set<string>();
        set.add(method);
        this.staticPaths.set(url, set);
      }
    }
  }

  /**
   * The path checks of a matched route with identifier segments: a static path that does not take
   * the method wins over the parameterised route that matched (405); then each identifier segment
   * must be a UUID (its resource's 404); valid identifiers are lower-cased in place.
   */
  checkPath(request: FastifyRequest, reply: FastifyReply): void {
    const config = request.routeOptions.config;
    const params = (request.params ?? {}) as Record<string, string>;
    if (config?.pathIds) {
      const methods = this.staticPaths.get(request.url.split('?', 1)[0]!.replace(/\/$/, ''));
      if (methods && !methods.has(request.method))
        throw methodNotAllowed(request.method, [...methods].sort(), reply);
      const malformed = malformedPathId(config.pathIds, params);
      if (malformed) throw malformed;
    }
    for (const [name, value] of Object.entries(params)) {
      if (config?.pathIds?.[name] && isUuid(value)) params[name] = value.toLowerCase();
    }
  }

  /**
   * A URL the router cannot decode (bad percent-encoding) or with an over-long segment: on a route
   * with identifier segments, the NotFound of the first segment that is not a UUID, echoing it raw;
   * otherwise no route matches it (RouteNotFoundError).
   */
  malformedUrlError(request: FastifyRequest): DomainError {
    const rawPath = (request.raw.url ?? '').split('?', 1)[0]!;
    const path = trimmed(rawPath);
    const route = this.entries.find((r) => r.method === request.method && r.pathIds && r.re.test(path));
    if (route?.pathIds) {
      const names = route.url.split('/');
      const values = path.split('/');
      const raw: Record<string, string> = {};
      names.forEach((n, i) => {
        if (n.startsWith(':')) raw[n.slice(1)] = values[i] ?? '';
      });
      const malformed = malformedPathId(route.pathIds, raw);
      if (malformed) return malformed;
    }
    return errors.RouteNotFoundError('No route matches this path', {
      method: request.method,
      path: rawPath,
    });
  }

  /** The error of a request no route took: 405 when the path exists for other methods, else 404. */
  notFoundError(request: FastifyRequest, reply: FastifyReply): DomainError {
    const path = request.url.split('?', 1)[0]!;
    const normalized = trimmed(path);
    const methods = [
      ...new Set(this.entries.filter((r) => r.re.test(normalized)).map((r) => r.method)),
    ].sort();
    if (methods.length > 0) return methodNotAllowed(request.method, methods, reply);
    return errors.RouteNotFoundError('No route matches this path', {
      method: request.method,
      path,
    });
  }
}
