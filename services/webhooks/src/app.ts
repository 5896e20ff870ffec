import { createHttpApp, type HttpApp, serviceAuthPlugin } from '@voice/kit';
import { type DeliveryWorker, startDeliveryWorker } from './delivery/worker.js';
import type { WebhooksDeps } from './deps.js';
import { startFanout } from './nats/fanout.js';
import { serveWebhooksRpc } from './nats/handlers.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { webhookRoutes } from './routes/webhooks.js';

/** The webhooks service's API: endpoints and their delivery log, over REST (via the gateway) and NATS. */
export async function buildApp(deps: WebhooksDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'webhooks',
    logger: deps.logger,
    readiness: {
      postgres: () => deps.prisma.$queryRaw`SELECT 1`,
      redis: () => deps.queue.getJobCounts('active'),
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
 * The background half: the durable JetStream consumer that turns events into delivery jobs, and the
 * BullMQ worker that attempts them. Every replica runs both; both scale by replica count.
 */
export async function startDeliveries(deps: WebhooksDeps): Promise<DeliveryWorker> {
  const worker = startDeliveryWorker(deps);
  await startFanout(deps);
  return worker;
}
