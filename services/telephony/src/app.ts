import { createHttpApp, type HttpApp, readinessChecks, serviceAuthPlugin, startWorkers } from '@voice/kit';
import { requestBodyLimitBytes } from '@voice/proto';
import type { TelephonyDeps } from './deps.js';
import { startDialer } from './dialer/workers.js';
import { serveTelephonyRpc } from './nats/handlers.js';
import { callRoutes } from './routes/calls.js';
import { dncRoutes } from './routes/dnc.js';
import { smsRoutes } from './routes/sms.js';
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
  callRoutes(app, deps);
  smsRoutes(app, deps);
  dncRoutes(app, deps);
  await twilioHookRoutes(app, deps);
  serveTelephonyRpc(deps);
  await startWorkers(app, deps.env.WORKERS, {
    outbox: () => deps.outbox.start(),
    dialer: () => startDialer(deps, deps.queues, deps.logger),
  });
  return app;
}
