import { createHttpApp, type HttpApp, serviceAuthPlugin } from '@voice/kit';
import { requestBodyLimitBytes } from '@voice/proto';
import type { LeadsDeps } from './deps.js';
import { consumeCallOutcomes } from './nats/call-outcomes.js';
import { serveLeadsRpc } from './nats/handlers.js';
import { invoiceRoutes } from './routes/invoices.js';
import { leadRoutes } from './routes/leads.js';
import { projectRoutes } from './routes/projects.js';
import { sequenceRoutes } from './routes/sequences.js';
import { themeRoutes } from './routes/themes.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { startStepWorker } from './sequences/runner.js';
import { startSweeper } from './sequences/sweeper.js';

/**
 * The leads service: workspaces, themes, leads, sequences, invoices and projects over REST (via the
 * gateway) and NATS; a BullMQ worker that runs sequence steps; a JetStream consumer of call outcomes.
 */
export async function buildApp(deps: LeadsDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'leads',
    bodyLimitBytes: requestBodyLimitBytes.leads,
    logger: deps.logger,
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: {
      postgres: () => deps.prisma.$queryRaw`SELECT 1`,
      redis: () => deps.redis.ping(),
      nats: () => deps.bus.ping(),
    },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  workspaceRoutes(app, deps);
  themeRoutes(app, deps);
  leadRoutes(app, deps);
  sequenceRoutes(app, deps);
  invoiceRoutes(app, deps);
  projectRoutes(app, deps);
  serveLeadsRpc(deps);
  await consumeCallOutcomes(deps);
  const stepWorker = startStepWorker(deps);
  const stopSweeper = startSweeper(deps);
  // Closing the app lets running steps finish before the connections they use are closed.
  app.addHook('onClose', async () => {
    await stopSweeper();
    await stepWorker.close();
  });
  return app;
}
