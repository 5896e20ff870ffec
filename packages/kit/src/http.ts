import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import fastifySwagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyContextConfig,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { ApiError, envelope, installErrorHandling, toApiError } from './errors.js';
import { healthPlugin, metricsRegistryOf, type ReadinessCheck } from './health.js';
import { newId } from './ids.js';
import { LingeringClose, type LingeringLimits } from './lingering-close.js';
import { type Instruments, instrumentRegistry } from './metrics.js';
import { RequestlessConnections } from './requestless-connections.js';
import { routeOperationId, routeScope } from './service-auth.js';
import { findNulCharacter } from './text.js';
import { activeTraceId, activeTracing } from './trace.js';

export interface HttpAppOptions {
  /** The deployable's name: the title of its OpenAPI document. */
  name: string;
  logger: Logger;
  /** Readiness checks by dependency name, e.g. `{ postgres, redis, nats }`. */
  readiness: Record<string, ReadinessCheck>;
  /** The registry `/metrics` serves, for a deployable that adds metrics of its own; a new one by default. */
  metrics?: Registry;
  /** Serve `/metrics` on the app's own port (the default); the gateway, whose port is public, does not. */
  serveMetrics?: boolean;
  /**
   * What `/metrics` reports beyond requests and the process (metrics.ts): the NATS requests the bus answers and
   * makes and its consumers' backlog, the outbox's lag and throughput.
   */
  instrument?: Instruments;
  /** Development only: `/readyz` shows each failed dependency's error text (hosts, ports, server messages). */
  showDependencyErrors?: boolean;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes?: number;
  /** How long and how much a connection is read after its body was refused (LingeringClose); nginx's by default. */
  lingering?: LingeringLimits;
  /** Behind this many proxies (a load balancer, the gateway): take the client address from X-Forwarded-For. */
  trustProxyHops?: number;
  /**
   * Take the request id from an incoming `Request-Id` header. Services do (the gateway sets it); the
   * gateway does not, so a client cannot choose the ids that name its records.
   */
  acceptRequestId?: boolean;
  /**
   * Answer each request's trace id in `Trace-Id` beside `Request-Id` (the gateway, where a client or support
   * looks the trace up). Only with tracing on.
   */
  traceIdHeader?: boolean;
  /**
   * Answers an error the router raises before any route or hook runs (`frameworkErrors` below) in the
   * deployable's own way, returning true; false leaves it to the envelope. The console answers its pages' errors with a page.
   */
  routerErrorAnswer?: (error: ApiError, request: FastifyRequest, reply: FastifyReply) => boolean;
}

export type HttpApp = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

const requestIdPattern = /^[A-Za-z0-9_-]{8,64}$/;
/** How long a connection may idle after its answer once the process is shutting down. */
const drainKeepAliveMs = 1_000;

/**
 * One access line per request, written when it is answered, instead of fastify's two (received, completed):
 * at the default level every line is work on the request path. Probes log nothing (their routes' level is
 * silent); fastify's other lines (errors, unknown routes) are unchanged.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

/**
 * A fastify instance with what every deployable shares: zod validation and serialization, the error
 * envelope, request ids (`Request-Id` in and out), health and metrics routes.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const hops = options.trustProxyHops ?? 0;
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    // Trusting no proxy is `false`, not a function saying no: then fastify reads the client address off the
    // socket instead of running proxy-addr over X-Forwarded-For each time `request.ip` is read. (A bare hop
    // count would not do: fastify 5.12 trusts no hop for one.)
    trustProxy: hops > 0 ? (_address: string, hop: number) => hop < hops : false,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['request-id'];
      const accept = options.acceptRequestId ?? true;
      return accept && typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : newId('request');
    },
    ajv: { customOptions: { coerceTypes: 'array' } },
    // While the process drains, requests still arriving on open connections are answered below: 503 in the
    // envelope with Retry-After, where fastify's own answer has neither.
    return503OnClosing: false,
    // Errors the router raises before any route or hook runs (a path that is not valid percent-encoding,
    // an overlong parameter) get the envelope too, not fastify's own body.
    frameworkErrors: (error, request: FastifyRequest, reply: FastifyReply) => {
      const apiError = toApiError(error);
      void reply.header('request-id', request.id);
      if (options.routerErrorAnswer?.(apiError, request, reply)) return;
      void reply.status(apiError.status).send(envelope(apiError, request.id));
    },
    logController: new AccessLog(),
  }).withTypeProvider<ZodTypeProvider>();
  const tracing = activeTracing();
  // First, so that its span is open (and active) in every hook and handler registered after it.
  if (tracing) await app.register(tracing.fastifyPlugin(options.name));
  const answerTraceId = tracing !== undefined && options.traceIdHeader === true;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const lingeringClose = new LingeringClose(options.lingering);
  installErrorHandling(app, lingeringClose);
  const requestless = new RequestlessConnections(app.server);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    lingeringClose.endAll();
    requestless.destroyAll();
    // server.close() closes the connections idle at that moment only: one answering a request then would
    // idle after its answer until keepAliveTimeout (72 s) and hold the close. Now it waits a moment, for a
    // request already on its way (answered 503 below, with Connection: close), then goes.
    app.server.keepAliveTimeout = drainKeepAliveMs;
    done();
  });
  // Hooks on every request are written with `done` rather than async: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('request-id', request.id);
    if (answerTraceId) {
      const traceId = activeTraceId();
      if (traceId) void reply.header('trace-id', traceId);
    }
    if (closing) {
      void reply.header('connection', 'close');
      done(new ApiError('unavailable', 'This instance is shutting down; retry.'));
      return;
    }
    done();
  });
  app.addHook('preValidation', (request, _reply, done) => {
    // A NUL in the path or query arrives percent-encoded (the HTTP parser refuses a raw one), so parsing
    // them is needed only when the URL holds `%00`; proxied requests are never parsed here at all.
    const parts = request.url.includes('%00') ? [request.params, request.query, request.body] : [request.body];
    for (const part of parts) {
      let path: string | undefined;
      try {
        path = findNulCharacter(part);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (path !== undefined) {
        done(new ApiError('invalid_request', `${path} contains a NUL character, which cannot be stored.`, { param: path }));
        return;
      }
    }
    done();
  });
  await app.register(healthPlugin, {
    checks: options.readiness,
    showErrors: options.showDependencyErrors ?? false,
    serveMetrics: options.serveMetrics ?? true,
    service: options.name,
    ...(options.metrics ? { registry: options.metrics } : {}),
  });
  if (options.instrument) instrumentRegistry(metricsRegistryOf(app), options.name, options.instrument);
  // Every route's zod schemas become its OpenAPI description; the gateway merges these into the public
  // document, so the schemas that validate requests are the ones published.
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.name, version: '1.0.0' },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } } },
    },
    // The route's declared scope travels in the document as `x-scope`; the gateway checks it agrees. Its
    // operation names it (`operationId`), so a generated client's methods carry the names proto declares.
    transform: (input) => {
      const output = jsonSchemaTransform(input);
      const config = input.route.config as FastifyContextConfig | undefined;
      const scope = routeScope(config);
      const operationId = routeOperationId(config);
      return {
        ...output,
        schema: { ...output.schema, ...(scope ? { 'x-scope': scope } : {}), ...(operationId ? { operationId } : {}) },
      };
    },
    transformObject: jsonSchemaTransformObject,
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true }, logLevel: 'silent' }, async () => app.swagger());
  return app;
}
