import { createHttpApp, type HttpApp, readinessChecks, serveOperations, serviceAuthPlugin, startWorkers } from '@voice/kit';
import { recallRpc } from '@voice/proto';
import type { RecallDeps } from './deps.js';
import { recallOperations } from './operations.js';
import { publicMarketingAudit } from './routes/marketing-audit.js';

/** The recall service: knowledge base, recall with cited answers, brand score and marketing audit. */
export async function buildApp(deps: RecallDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'recall',
    logger: deps.logger,
    bodyLimitBytes: deps.env.BODY_LIMIT_BYTES,
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: readinessChecks(deps),
    instrument: { bus: deps.bus, outbox: { relay: deps.outbox, database: deps.prisma } },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  serveOperations({ app, bus: deps.bus, idempotency: deps }, recallRpc, recallOperations(deps));
  publicMarketingAudit(app, deps);
  await startWorkers(app, deps.env.WORKERS, { outbox: () => deps.outbox.start() });
  return app;
}
