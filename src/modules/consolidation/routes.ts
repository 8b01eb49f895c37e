/** Consolidation setup routes: groups and members (3.10) and elimination rules (3.11). */
import type { FastifyInstance } from 'fastify';
import { consolidationGroupRoutes } from './groups.routes.ts';
import { eliminationRuleRoutes } from './rules.routes.ts';

export async function consolidationSetupRoutes(app: FastifyInstance): Promise<void> {
  await app.register(consolidationGroupRoutes);
  await app.register(eliminationRuleRoutes);
}
