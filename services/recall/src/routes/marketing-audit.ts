import { ApiError, clientAddress, type HttpApp, publicRouteOptions } from '@voice/kit';
import { type MarketingAuditBody, publicMarketingAuditRoute } from '@voice/proto';
import type { RecallDeps } from '../deps.js';
import { cachedMarketingAudit } from '../domain/marketing-audit.js';

/** The public marketing audit: no key, limited per client address. The keyed one is an operation (`recallRpc.marketingAudit`). */
export function publicMarketingAudit(app: HttpApp, deps: RecallDeps): void {
  app.route({
    ...publicRouteOptions(publicMarketingAuditRoute),
    handler: async (request, reply) => {
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
        (request.body as MarketingAuditBody).url,
        deps.pageFetch,
        { redis: deps.redis, prefix: deps.env.REDIS_PREFIX, ttlSeconds: deps.env.PUBLIC_AUDIT_CACHE_SECONDS },
        request.log,
      );
    },
  });
}
