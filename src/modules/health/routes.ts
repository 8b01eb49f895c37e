import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StringEnum, Timestamp, Type } from '../../http/schemas.ts';

const HealthStatus = Type.Object({
  status: StringEnum(['ok', 'degraded'] as const),
  timestamp: Timestamp,
  version: Type.String(),
  database: StringEnum(['ok', 'unavailable'] as const),
});

/**
 * A database that answered one of the process's statements this recently is reported up without a
 * query of its own: under load, health's `select 1` would wait for a pool connection (or, on PGlite,
 * for the one connection) behind all the queued work, and a load balancer would take a busy process
 * for a dead one. An idle process, or one whose database stopped answering, pings.
 */
export const RECENT_ANSWER_MS = 1000;
/** How long the ping may take before the database is reported unavailable. */
const PING_TIMEOUT_MS = 2000;

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/health',
    {
      config: { public: true },
      schema: {
        tags: ['Health'],
        summary: 'Service health',
        description:
          'Public. 503 when degraded. The database is reported `ok` when it answered a statement of this ' +
          'process within the last second (the traffic already proves it up, so a busy process answers ' +
          'at once instead of queueing a check behind its work); otherwise health checks it with a ' +
          'trivial query (2-second timeout). A database that stops answering is therefore reported ' +
          '`unavailable` within about 3 seconds.',
        response: { 200: HealthStatus, 503: HealthStatus },
      },
    },
    async (_request, reply) => {
      const { database } = app.deps;
      const ok = database.answeredWithin(RECENT_ANSWER_MS) || (await database.ping(PING_TIMEOUT_MS));
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
