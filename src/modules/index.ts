/** Every module's routes, registered by buildApp. New modules add one line here. */
import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './accounts/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { yearEndRoutes } from './closing/routes.ts';
import { companyRoutes } from './companies/routes.ts';
import { consolidationSetupRoutes } from './consolidation/routes.ts';
import { exchangeRateRoutes } from './exchange-rates/routes.ts';
import { fiscalRoutes } from './fiscal/routes.ts';
import { fxRevaluationRoutes } from './fx-revaluation/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { intercompanyRoutes } from './intercompany/routes.ts';
import { importRoutes } from './journal/import-routes.ts';
import { journalRoutes } from './journal/routes.ts';
import { organizationRoutes } from './organizations/routes.ts';
import { reportRoutes } from './reports/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';

export async function registerModules(app: FastifyInstance): Promise<void> {
  await app.register(healthRoutes);
  await app.register(authRoutes);
  await app.register(organizationRoutes);
  await app.register(companyRoutes);
  await app.register(accountRoutes);
  await app.register(fiscalRoutes);
  await app.register(exchangeRateRoutes);
  await app.register(reportRoutes);
  await app.register(intercompanyRoutes);
  await app.register(consolidationSetupRoutes);
  await app.register(journalRoutes);
  await app.register(importRoutes);
  await app.register(yearEndRoutes);
  await app.register(fxRevaluationRoutes);
  await app.register(webhookRoutes);
}
