import {
  createHttpApp,
  type HttpApp,
  metricsRegistryOf,
  readinessChecks,
  serveOperations,
  serviceAuthPlugin,
  startWorkers,
} from '@voice/kit';
import { requestBodyLimitBytes, webhooksRpc } from '@voice/proto';
import { startMaintenance } from './delivery/maintenance.js';
import { startDeliveryWorker } from './delivery/worker.js';
import type { WebhooksDeps } from './deps.js';
import { DeliveryMetrics } from './metrics.js';
import { startFanout } from './nats/fanout.js';
import { startPlanChanges } from './nats/plan-changes.js';
import { webhooksOperations, webhooksServeOptions } from './operations.js';

/**
 * The webhooks service: endpoints and their delivery log, over REST (via the gateway) and NATS; and the
 * background work WORKERS enables, all of it by default: the durable JetStream consumers that turn events
 * into delivery jobs and apply plan changes, the BullMQ worker that attempts deliveries, and the
 * maintenance job. They scale by replicas.
 */
export async function buildApp(deps: WebhooksDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'webhooks',
    bodyLimitBytes: requestBodyLimitBytes.webhooks,
    logger: deps.logger,
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: readinessChecks(deps),
    instrument: { bus: deps.bus },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  const metrics = new DeliveryMetrics(metricsRegistryOf(app), deps.queue);
  serveOperations({ app, bus: deps.bus, idempotency: deps }, webhooksRpc, webhooksOperations(deps), webhooksServeOptions(deps));
  // Closed in reverse: the consumers stop taking events first, then in-flight attempts finish.
  await startWorkers(app, deps.env.WORKERS, {
    deliveries: () => startDeliveryWorker(deps, metrics),
    maintenance: () => startMaintenance(deps),
    fanout: () => startFanout(deps),
    'plan-changes': () => startPlanChanges(deps),
  });
  return app;
}
