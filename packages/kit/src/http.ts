import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { installErrorHandling } from './errors.js';
import { healthPlugin, type ReadinessCheck } from './health.js';
import { newId } from './ids.js';

export interface HttpAppOptions {
  logger: Logger;
  /** Readiness checks by dependency name, e.g. `{ postgres, redis, nats }`. */
  readiness: Record<string, ReadinessCheck>;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes?: number;
  /** Behind a load balancer or the gateway: take the client address from X-Forwarded-For. */
  trustProxy?: boolean | string;
}

export type HttpApp = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

const requestIdPattern = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * A fastify instance with what every deployable shares: zod validation and serialization, the error
 * envelope, request ids (`Request-Id` in and out), health and metrics routes.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['request-id'];
      return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : newId('request');
    },
    disableRequestLogging: false,
    ajv: { customOptions: { coerceTypes: 'array' } },
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('request-id', request.id);
  });
  await app.register(healthPlugin, { checks: options.readiness });
  return app;
}
