/** Every module's routes, registered by buildApp. New modules add one line here. */
import type { FastifyInstance } from 'fastify';
import { authRoutes } from './auth/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { organizationRoutes } from './organizations/routes.ts';

export async function registerModules(app: FastifyInstance): Promise<void> {
  await app.register(healthRoutes);
  await app.register(authRoutes);
  await app.register(organizationRoutes);
}
