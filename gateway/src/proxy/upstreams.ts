import proxy from '@fastify/http-proxy';
import { ApiError, envelope, type HttpApp, signIdentity } from '@voice/kit';
import type { GatewayEnv } from '../env.js';

/** Which service serves which public path prefix. */
export function upstreamRoutes(env: GatewayEnv): Array<{ prefix: string; upstream: string; service: string }> {
  const routes: Array<[string, string[]]> = [
    ['telephony', ['/api/v1/phone', '/api/hooks/twilio']],
    ['leads', ['/api/v1/leads', '/api/v1/themes', '/api/v1/workspaces', '/api/v1/sequences', '/api/v1/invoices', '/api/v1/projects']],
    ['recall', ['/api/v1/llm-recall', '/api/v1/knowledge', '/api/v1/marketing-audit', '/api/public/marketing-audit']],
    ['mcp', ['/api/mcp', '/api/v1/approvals', '/api/hooks/telegram', '/api/hooks/slack']],
    ['webhooks', ['/api/v1/webhooks']],
  ];
  const urls: Record<string, string> = {
    telephony: env.TELEPHONY_URL,
    leads: env.LEADS_URL,
    recall: env.RECALL_URL,
    mcp: env.MCP_URL,
    webhooks: env.WEBHOOKS_URL,
  };
  return routes.flatMap(([service, prefixes]) => prefixes.map((prefix) => ({ prefix, service, upstream: urls[service] as string })));
}

/** Headers a client may not smuggle through to a service: identity is the gateway's to assert. */
const strippedHeaders = ['authorization', 'x-voice-identity', 'x-voice-signature', 'cookie'];

/**
 * Proxies each prefix to its service with @fastify/http-proxy. The API key stays at the gateway; the
 * service receives the caller's identity in headers signed with the internal secret. A service that is
 * down or slow gets a 503 envelope quickly, not a hang.
 */
export async function registerProxies(app: HttpApp, env: GatewayEnv): Promise<void> {
  for (const route of upstreamRoutes(env)) {
    await app.register(proxy, {
      upstream: route.upstream,
      prefix: route.prefix,
      rewritePrefix: route.prefix,
      http2: false,
      undici: {
        connections: 128,
        pipelining: 1,
        connectTimeout: 1_000,
        headersTimeout: env.UPSTREAM_TIMEOUT_MS,
        bodyTimeout: env.UPSTREAM_TIMEOUT_MS,
      },
      replyOptions: {
        rewriteRequestHeaders: (request, headers) => {
          const forwarded: Record<string, string | string[] | undefined> = { ...headers };
          for (const name of strippedHeaders) delete forwarded[name];
          forwarded['request-id'] = request.id;
          forwarded['x-forwarded-for'] = request.ip;
          if (request.identity)
            Object.assign(
              forwarded,
              signIdentity(request.identity, { method: request.method, url: request.url }, env.INTERNAL_SIGNING_SECRET),
            );
          return forwarded;
        },
        onError: (reply, { error }) => {
          reply.request.log.warn({ err: error, service: route.service }, 'upstream failed');
          const apiError = new ApiError('unavailable', `The ${route.service} service is unavailable; retry shortly.`);
          void reply.code(503).header('retry-after', '1').send(envelope(apiError, reply.request.id));
        },
      },
    });
  }
}
