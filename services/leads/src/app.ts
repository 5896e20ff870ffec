import {
  type BackgroundWork,
  createHttpApp,
  type HttpApp,
  readinessChecks,
  serveOperations,
  serviceAuthPlugin,
  startWorkers,
} from '@voice/kit';
import { leadsRpc, requestBodyLimitBytes } from '@voice/proto';
import type { LeadsDeps } from './deps.js';
import { consumeCallOutcomes } from './nats/call-outcomes.js';
import { leadsOperations } from './operations.js';
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
    readiness: readinessChecks(deps),
    instrument: { bus: deps.bus, outbox: { relay: deps.outbox, database: deps.prisma } },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  serveOperations({ app, bus: deps.bus, idempotency: deps }, leadsRpc, leadsOperations(deps));
  await startWorkers(app, deps.env.WORKERS, {
    outbox: () => deps.outbox.start(),
    'call-outcomes': () => consumeCallOutcomes(deps),
    sequences: () => runSequences(deps),
  });
  return app;
}

/** The step worker and the sweeper that finds steps without a job; closing lets running steps finish. */
function runSequences(deps: LeadsDeps): BackgroundWork {
  const stepWorker = startStepWorker(deps);
  const sweeper = startSweeper(deps);
  return {
    async close() {
      await sweeper.close();
      await stepWorker.close();
    },
  };
}
