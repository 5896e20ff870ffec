import { createHttpApp, type HttpApp, readinessChecks, serveOperations, serviceAuthPlugin, startWorkers } from '@voice/kit';
import { requestBodyLimitBytes, telephonyRpc } from '@voice/proto';
import type { TelephonyDeps } from './deps.js';
import { startDialer } from './dialer/workers.js';
import { telephonyOperations } from './operations.js';
import { twilioHookRoutes } from './routes/twilio-hooks.js';

/** The telephony service: calls, SMS and the do-not-call list, over REST (via the gateway) and NATS. */
export async function buildApp(deps: TelephonyDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'telephony',
    logger: deps.logger,
    // Bodies here are a phone number and a message at most; anything near this size is a mistake.
    bodyLimitBytes: requestBodyLimitBytes.telephony,
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: readinessChecks(deps),
    instrument: { bus: deps.bus, outbox: { relay: deps.outbox, database: deps.prisma } },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  serveOperations({ app, bus: deps.bus, idempotency: deps }, telephonyRpc, telephonyOperations(deps));
  await twilioHookRoutes(app, deps);
  await startWorkers(app, deps.env.WORKERS, {
    outbox: () => deps.outbox.start(),
    dialer: () => startDialer(deps, deps.queues, deps.logger),
  });
  return app;
}
