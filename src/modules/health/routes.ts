import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StringEnum, Timestamp, Type } from '../../http/schemas.ts';

const HealthStatus = Type.Object({
  status: StringEnum(['ok', 'degraded'] as const),
  timestamp: Timestamp,
  version: Type.String(),
  database: StringEnum(['ok', 'unavailable'] as const),
});

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/health',
    {
      config: { public: true },
      schema: {
        tags: ['Health'],
        summary: 'Service health',
        description:
          'Public. Checks the database with a trivial query (2-second timeout). 503 when degraded.',
        response: { 200: HealthStatus, 503: HealthStatus },
      },
    },
    async (_request, reply) => {
      const ok = await app.deps.database.ping(2000);
      reply.header('cache-control', 'no-store');
      return reply.code(ok ? 200 : 503).send({
        status: ok ? 'ok' : 'degraded',
        timestamp: new Date().toISOString(),
        version: app.deps.version,
        database: ok ? 'ok' : 'unavailable',
      });
    },
  );

  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
};
