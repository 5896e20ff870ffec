import { createHttpApp, type HttpApp, readinessChecks, serviceAuthPlugin, startWorkers } from '@voice/kit';
import type { RecallDeps } from './deps.js';
import { serveRecallRpc } from './nats/handlers.js';
import { documentRoutes } from './routes/documents.js';
import { llmRecallRoutes } from './routes/llm-recall.js';
import { marketingAuditRoutes } from './routes/marketing-audit.js';

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
  documentRoutes(app, deps);
  llmRecallRoutes(app, deps);
  marketingAuditRoutes(app, deps);
  serveRecallRpc(deps);
  await startWorkers(app, deps.env.WORKERS, { outbox: () => deps.outbox.start() });
  return app;
}
