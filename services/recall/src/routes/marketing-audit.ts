import { ApiError, clientAddress, type HttpApp } from '@voice/kit';
import { errorEnvelopeSchema, marketingAuditBodySchema, marketingAuditSchema } from '@voice/proto';
import type { RecallDeps } from '../deps.js';
import { cachedMarketingAudit } from '../domain/marketing-audit.js';

/** The public marketing audit: no key, limited per client address. The keyed one is an operation (`recallRpc.marketingAudit`). */
export function publicMarketingAuditRoute(app: HttpApp, deps: RecallDeps): void {
  app.post(
    '/api/public/marketing-audit',
    {
      schema: {
        tags: ['marketing-audit'],
        summary: 'Audit a page for search and AI visibility (public, rate-limited)',
        description: `No API key. Limited to ${deps.env.PUBLIC_AUDIT_LIMIT} audits per client address per ${deps.env.PUBLIC_AUDIT_WINDOW_SECONDS} s (429 rate_limited, with Retry-After). Private, loopback and link-local addresses are refused.`,
        body: marketingAuditBodySchema,
        response: { 200: marketingAuditSchema, 429: errorEnvelopeSchema },
      },
      config: { public: true, operationId: 'publicMarketingAudit' },
    },
    async (request, reply) => {
      const decision = await deps.auditLimiter.take(clientAddress(request.headers['x-forwarded-for'], request.socket.remoteAddress));
      const headers = {
        'x-ratelimit-limit': String(decision.limit),
        'x-ratelimit-remaining': String(decision.remaining),
        'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + decision.resetInSeconds),
      };
      if (!decision.allowed) {
        throw new ApiError('rate_limited', `Too many audits from your address; retry in ${decision.resetInSeconds} s.`, {
          headers: { ...headers, 'retry-after': String(decision.resetInSeconds) },
        });
      }
      void reply.headers(headers);
      return cachedMarketingAudit(
        request.body.url,
        deps.pageFetch,
        { redis: deps.redis, prefix: deps.env.REDIS_PREFIX, ttlSeconds: deps.env.PUBLIC_AUDIT_CACHE_SECONDS },
        request.log,
      );
    },
  );
}
