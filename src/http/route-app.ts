import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/**
 * The application as a module's routes see it (TypeBox schemas typing requests), so that a routes
 * plugin can register its routes in several named functions, one per job.
 */
export type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];
