import {
  type BackgroundWork,
  createHttpApp,
  everyInterval,
  type HttpApp,
  newId,
  readinessChecks,
  sampledRequestSpan,
  serveOperations,
  startWorkers,
  urlPath,
} from '@voice/kit';
import { gatewayRpc, oauthRpc } from '@voice/proto';
import { Registry } from 'prom-client';
import { AuditPublisher } from './audit/publisher.js';
import { applyAuditRetention } from './audit/retention.js';
import { AuditWriter } from './audit/writer.js';
import { authenticate } from './auth/authenticate.js';
import { isProtectedPath } from './auth/scopes.js';
import type { GatewayDeps } from './deps.js';
import { GatewayMetrics } from './metrics.js';
import { deleteEndedAccessTokens } from './oauth/grants.js';
import { challengesFor } from './oauth/metadata.js';
import { gatewayOperations, oauthOperations } from './operations.js';
import { registerProxies } from './proxy/upstreams.js';
import { homeRoute } from './routes/home.js';
import { oauthRoutes } from './routes/oauth.js';
import { openApiRoute } from './routes/openapi.js';

/**
 * The gateway, the only public entry: authenticate, check scope, count quota (one Lua call), audit, and
 * proxy to the service with the caller's identity in signed headers.
 */
export async function buildApp(deps: GatewayDeps): Promise<HttpApp> {
  // The gateway's own metrics (the audit buffer's) beside the process metrics. Its port is public, so they are
  // not served on it but on METRICS_PORT (runService), where only the cluster's Prometheus reaches them.
  const metrics = new Registry();
  const app = await createHttpApp({
    name: 'gateway',
    traceIdHeader: true,
    metrics,
    serveMetrics: false,
    logger: deps.logger,
    trustProxyHops: deps.env.TRUST_PROXY_HOPS,
    acceptRequestId: false,
    lingering: { timeMs: deps.env.LINGERING_TIME_MS, idleMs: deps.env.LINGERING_TIMEOUT_MS, maxBytes: deps.env.LINGERING_MAX_BYTES },
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: readinessChecks(deps),
    instrument: { bus: deps.bus, outbox: { relay: deps.outbox, database: deps.prisma } },
  });

  const challenges = challengesFor(deps.env);
  const gatewayMetrics = new GatewayMetrics(metrics, deps.redis);
  app.addHook('onRequest', async (request, reply) => {
    const path = urlPath(request.url);
    if (isProtectedPath(path)) await authenticate(deps, request, reply, path, challenges(path), gatewayMetrics);
  });

  // One audit record per authenticated API call, collected off the request path and published in batches.
  const auditPublisher = new AuditPublisher(deps.bus, deps.logger, {
    flushMs: deps.env.AUDIT_PUBLISH_MS,
    flushAt: 1_000,
    maxHeld: deps.env.AUDIT_MAX_HELD_RECORDS,
    retryMs: 200,
    maxRetryMs: 5_000,
    metrics,
  });
  app.addHook('onResponse', (request, reply, done) => {
    const identity = request.identity;
    if (identity) {
      auditPublisher.add(
        identity.org_id,
        {
          id: newId('audit'),
          key_id: identity.key_id,
          method: request.method,
          path: urlPath(request.url),
          status: reply.statusCode,
          latency_ms: Math.round(reply.elapsedTime),
          request_id: request.id,
          client_address: request.ip ?? null,
          at: deps.now().toISOString(),
        },
        sampledRequestSpan(request),
      );
    }
    done();
  });
  app.addHook('onClose', async () => auditPublisher.close(deps.env.AUDIT_SHUTDOWN_WAIT_MS));

  homeRoute(app, deps.env);
  openApiRoute(app);
  oauthRoutes(app, deps.env);
  await registerProxies(app, deps.env);

  const host = { app, bus: deps.bus, idempotency: deps };
  serveOperations(host, gatewayRpc, gatewayOperations(deps));
  serveOperations(host, oauthRpc, oauthOperations(deps));

  await startWorkers(app, deps.env.WORKERS, {
    'audit-writer': () => startAuditWriter(deps),
    outbox: () => deps.outbox.start(),
  });
  return app;
}

/** The audit writer (the `gateway-audit` consumer, inserting in batches) and the hourly retention job (audit records, ended access tokens). */
async function startAuditWriter(deps: GatewayDeps): Promise<BackgroundWork> {
  const writer = new AuditWriter({ prisma: deps.prisma, pool: deps.auditPool }, deps.logger, {
    batchSize: deps.env.AUDIT_BATCH_SIZE,
    flushMs: deps.env.AUDIT_FLUSH_MS,
  });
  // Several events in flight, so one insert carries many of them: each resolves when its insert commits.
  const consumer = await deps.bus.consume(
    { durable: 'gateway-audit', types: ['api.called'], maxDeliver: -1, concurrency: deps.env.AUDIT_BATCH_SIZE },
    (event) => writer.add(event),
  );
  // Plain deletes by time: one replica at a time does them.
  const cleanups = [
    everyInterval({
      name: 'gateway.audit-retention',
      everyMs: deps.env.AUDIT_RETENTION_INTERVAL_MS,
      scope: 'cluster',
      databaseUrl: deps.env.DATABASE_URL,
      logger: deps.logger,
      run: () => applyAuditRetention(deps.prisma, deps.now()),
    }),
    everyInterval({
      name: 'gateway.access-token-cleanup',
      everyMs: deps.env.AUDIT_RETENTION_INTERVAL_MS,
      scope: 'cluster',
      databaseUrl: deps.env.DATABASE_URL,
      logger: deps.logger,
      run: () => deleteEndedAccessTokens(deps, deps.now()),
    }),
  ];
  return {
    async close() {
      // Stop taking events, and the events in hand resolve once their batch is written; running cleanups finish.
      await Promise.all([consumer.close(), writer.flush(), ...cleanups.map((cleanup) => cleanup.close())]);
    },
  };
}
