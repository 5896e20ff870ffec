import { createHttpApp, type HttpApp, serviceAuthPlugin } from '@voice/kit';
import { requestBodyLimitBytes } from '@voice/proto';
import { startMaintenance } from './delivery/maintenance.js';
import { startDeliveryWorker } from './delivery/worker.js';
import type { WebhooksDeps } from './deps.js';
import { startFanout } from './nats/fanout.js';
import { serveWebhooksRpc } from './nats/handlers.js';
import { startPlanChanges } from './nats/plan-changes.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { webhookRoutes } from './routes/webhooks.js';

/** The webhooks service's API: endpoints and their delivery log, over REST (via the gateway) and NATS. */
export async function buildApp(deps: WebhooksDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'webhooks',
    bodyLimitBytes: requestBodyLimitBytes.webhooks,
    logger: deps.logger,
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: {
      postgres: () => deps.prisma.$queryRaw`SELECT 1`,
      redis: () => deps.redis.ping(),
      nats: () => deps.bus.ping(),
    },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  webhookRoutes(app, deps);
  deliveryRoutes(app, deps);
  serveWebhooksRpc(deps);
  return app;
}

/**
 * The background half: the durable JetStream consumer that turns events into delivery jobs, the BullMQ
 * worker that attempts them, and the maintenance job. Every replica runs all three; they scale by replicas.
 */
export async function startDeliveries(deps: WebhooksDeps): Promise<{ close(): Promise<void> }> {
  const worker = startDeliveryWorker(deps);
  const maintenance = await startMaintenance(deps);
  await startFanout(deps);
  await startPlanChanges(deps);
  return {
    async close() {
      await Promise.all([worker.close(), maintenance.close()]);
    },
  };
}
