/** Consolidation routes: groups and members, elimination rules and runs. */
import type { FastifyInstance } from 'fastify';
import { adjustmentRoutes } from './adjustments.routes.ts';
import { groupChartRoutes } from './chart.routes.ts';
import { consolidationGroupRoutes } from './groups.routes.ts';
import { eliminationRuleRoutes } from './rules.routes.ts';
import { consolidationRunRoutes } from './runs.routes.ts';

export async function consolidationSetupRoutes(app: FastifyInstance): Promise<void> {
  await app.register(consolidationGroupRoutes);
  await app.register(groupChartRoutes);
  await app.register(adjustmentRoutes);
  await app.register(eliminationRuleRoutes);
  await app.register(consolidationRunRoutes);
}
