import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { withDeadline } from './deadline.js';

/** A dependency check for readiness: resolves when the dependency answers, rejects otherwise. */
export type ReadinessCheck = () => Promise<unknown>;

export interface HealthOptions {
  checks: Record<string, ReadinessCheck>;
  /** Each check must answer within this; a hung dependency is "not ready", never a hung probe. */
  checkTimeoutMs?: number;
  /**
   * Put each failed check's error text in the `/readyz` body. Only for development: the text carries
   * hosts, ports and server messages; elsewhere the body says only which dependency failed and the text
   * goes to the log.
   */
  showErrors?: boolean;
  registry?: Registry;
  /**
   * The deployable's name, on every series of the registry as the label `service`: dashboards and alerts
   * tell the deployables apart by it, whatever labels the scrape configuration adds.
   */
  service?: string;
  /**
   * Serve `/metrics` on this app (true by default: the services' ports are reached only inside the cluster).
   * The gateway's port is public, so its metrics are served on a port of their own (startMetricsServer).
   */
  serveMetrics?: boolean;
}

/** The registry each app's health plugin fills, for a metrics server of its own. */
const registries = new WeakMap<FastifyInstance, Registry>();

/** The registry an app's request durations and process metrics go to. */
export function metricsRegistryOf(app: FastifyInstance): Registry {
  const registry = registries.get(app);
  if (!registry) throw new Error('this app has no health plugin, so no metrics registry');
  return registry;
}

export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/** Serves a registry's Prometheus text at `/metrics` on a port of its own; every other path is 404. */
export async function startMetricsServer(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `/healthz` says only that the process runs (a database blip must not restart every pod); `/readyz` checks
 * each dependency; `/metrics` is Prometheus text with default process metrics and request durations.
 */
export const healthPlugin = fp<HealthOptions>(
  async (app: FastifyInstance, options) => {
    const registry = options.registry ?? new Registry();
    registries.set(app, registry);
    if (options.service) registry.setDefaultLabels({ service: options.service });
    // prom-client samples the event loop's delay every 10 ms by default. Those hundred wake-ups a second cost
    // an idle gateway about 6 ms of CPU per second (measured); every 100 ms still sees the stalls that matter.
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
    const requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    const timeoutMs = options.checkTimeoutMs ?? 1_000;
    const runChecks = () => {
      const names = Object.keys(options.checks);
      // async: a check that throws at once is a failed check, like one that rejects.
      const results = names.map(async (name) =>
        withDeadline((options.checks[name] as ReadinessCheck)(), timeoutMs, `no answer within ${timeoutMs} ms`),
      );
      return Promise.allSettled(results).then((settled) => ({ names, settled }));
    };
    // The readiness checks again at each scrape, so that an outage of Postgres, Redis or NATS, as each process
    // sees it, is a series an alert can watch (a probe's answer reaches only the kubelet).
    new Gauge({
      name: 'readiness_check_up',
      help: 'Whether each readiness check (postgres, redis, nats, …) passed when scraped: 1 passed, 0 failed',
      labelNames: ['check'],
      registers: [registry],
      async collect() {
        const { names, settled } = await runChecks();
        names.forEach((name, index) => {
          this.set({ check: name }, settled[index]?.status === 'fulfilled' ? 1 : 0);
        });
      },
    });
    const probeRoutes = new Set(['/healthz', '/readyz', '/metrics']);

    const observe = (method: string, route: string, status: number, elapsedMs: number) =>
      requestDuration.observe({ method, route, status }, elapsedMs / 1000);
    // Each route gets a hook of its own that knows its URL pattern, because reading it per request
    // (`request.routeOptions`) builds a dozen-field object on every call. Unmatched requests are counted
    // by one shared hook.
    app.addHook('onRoute', (route) => {
      if (probeRoutes.has(route.url)) return;
      const { url } = route;
      const observeRoute: onResponseHookHandler = (request, reply, done) => {
        observe(request.method, url, reply.statusCode, reply.elapsedTime);
        done();
      };
      route.onResponse = [...[route.onResponse ?? []].flat(), observeRoute];
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) observe(request.method, 'unmatched', reply.statusCode, reply.elapsedTime);
      done();
    });

    app.get('/healthz', { logLevel: 'silent', schema: { hide: true } }, async () => ({ status: 'ok' }));

    app.get('/readyz', { logLevel: 'silent', schema: { hide: true } }, async (_request, reply) => {
      const { names, settled: results } = await runChecks();
      const checks: Record<string, string> = {};
      const errors: Record<string, string> = {};
      results.forEach((result, index) => {
        const name = names[index] as string;
        if (result.status === 'fulfilled') checks[name] = 'ok';
        else {
          errors[name] = String((result.reason as Error)?.message ?? result.reason);
          checks[name] = options.showErrors ? errors[name] : 'unavailable';
        }
      });
      const ready = results.every((result) => result.status === 'fulfilled');
      // The app's logger, not the request's: probe routes log nothing of their own (their level is silent).
      if (!ready) app.log.warn({ errors }, 'not ready');
      return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
    });

    if (options.serveMetrics ?? true) {
      app.get('/metrics', { logLevel: 'silent', schema: { hide: true } }, async (_request, reply) => {
        return reply.type(registry.contentType).send(await registry.metrics());
      });
    }
  },
  { name: 'voice-health' },
);

/** The connections a deployable's readiness depends on; each one present gets a check. */
export interface ReadinessDependencies {
  prisma?: { $queryRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<unknown> };
  redis?: { ping(): Promise<unknown> };
  bus?: { ping(): Promise<unknown> };
}

/** `/readyz`'s checks for a deployable's dependencies: Postgres, Redis and NATS, each that it uses. */
export function readinessChecks(deps: ReadinessDependencies): Record<string, ReadinessCheck> {
  const { prisma, redis, bus } = deps;
  return {
    ...(prisma ? { postgres: async () => prisma.$queryRaw`SELECT 1` } : {}),
    ...(redis ? { redis: () => redis.ping() } : {}),
    ...(bus ? { nats: () => bus.ping() } : {}),
  };
}
