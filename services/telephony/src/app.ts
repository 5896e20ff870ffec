import { createHttpApp, type HttpApp, serviceAuthPlugin } from '@voice/kit';
import type { TelephonyDeps } from './deps.js';
import { serveTelephonyRpc } from './nats/handlers.js';
import { callRoutes } from './routes/calls.js';

/** The telephony service: calls, SMS and the do-not-call list, over REST (via the gateway) and NATS. */
export async function buildApp(deps: TelephonyDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'telephony',
    logger: deps.logger,
    readiness: {
      postgres: () => deps.prisma.$queryRaw`SELECT 1`,
      nats: () => deps.bus.ping(),
    },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  callRoutes(app, deps);
  serveTelephonyRpc(deps);
  return app;
}
