/**
 * The API reference: the OpenAPI document at `/api/openapi.json` (built from the route schemas by
 * http/openapi.ts) and the interactive reference at `/api/docs`. Both are public.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { createOpenApiHooks } from './openapi.ts';

/** The OpenAPI document (at `/api/openapi.json`) and its reference pages, for this service `version`. */
export async function registerApiDocs(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    ...createOpenApiHooks(),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Groupbook API',
        version,
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
  // Operations start collapsed: with every tag expanded the reference renders too slowly to use.
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: false,
    theme: { title: 'Groupbook API reference' },
    uiConfig: { docExpansion: 'none' },
  });
}
