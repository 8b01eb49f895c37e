import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/**
 * The application as a module's routes see it (TypeBox schemas typing requests), so that a routes
 * plugin can register its routes in several named functions, one per job.
 */
export type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** A module's routes plugin: its functions that register routes, one per job, called in this order. */
export function routesPlugin(...jobs: ((app: RouteApp) => void)[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const register of jobs) register(app);
  };
}
