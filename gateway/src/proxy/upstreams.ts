import proxy from '@fastify/http-proxy';
import { ApiError, envelope, type HttpApp, signIdentity } from '@voice/kit';
import { requestBodyLimitBytes, type ServiceName } from '@voice/proto';
import type { GatewayEnv } from '../env.js';

/** Which service serves which public path prefix. */
export function upstreamRoutes(env: GatewayEnv): Array<{ prefix: string; upstream: string; service: ServiceName }> {
  const routes: Array<[ServiceName, string[]]> = [
    ['telephony', ['/api/v1/phone', '/api/hooks/twilio']],
    ['leads', ['/api/v1/leads', '/api/v1/themes', '/api/v1/workspaces', '/api/v1/sequences', '/api/v1/invoices', '/api/v1/projects']],
    ['recall', ['/api/v1/llm-recall', '/api/v1/knowledge', '/api/v1/marketing-audit', '/api/public/marketing-audit']],
    ['mcp', ['/api/mcp', '/api/v1/approvals', '/api/hooks/telegram', '/api/hooks/slack']],
    ['webhooks', ['/api/v1/webhooks']],
  ];
  const urls: Record<ServiceName, string> = {
    telephony: env.TELEPHONY_URL,
    leads: env.LEADS_URL,
    recall: env.RECALL_URL,
    mcp: env.MCP_URL,
    webhooks: env.WEBHOOKS_URL,
  };
  return routes.flatMap(([service, prefixes]) => prefixes.map((prefix) => ({ prefix, service, upstream: urls[service] })));
}

/** Headers a client may not smuggle through to a service: identity is the gateway's to assert. */
const strippedHeaders = new Set(['authorization', 'x-voice-identity', 'x-voice-signature', 'cookie']);

/**
 * Proxies each prefix to its service with @fastify/http-proxy. The API key stays at the gateway; the
 * service receives the caller's identity in headers signed with the internal secret. A service that is
 * down or slow gets a 503 envelope quickly, not a hang.
 */
export async function registerProxies(app: HttpApp, env: GatewayEnv): Promise<void> {
  for (const route of upstreamRoutes(env)) {
    const bodyLimitBytes = requestBodyLimitBytes[route.service];
    await app.register(proxy, {
      upstream: route.upstream,
      // Refuse an oversize body here, by its declared length: a service that stops reading mid-upload
      // would otherwise surface as a broken pipe, not as the 413 the client needs.
      preHandler: (request, reply, done) => {
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > bodyLimitBytes) {
          const apiError = new ApiError('payload_too_large', `The request body is larger than ${bodyLimitBytes} bytes.`, { param: 'body' });
          void reply.code(413).header('connection', 'close').send(envelope(apiError, request.id));
          return;
        }
        done();
      },
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
          // Copied without the stripped names rather than deleted from a copy: `delete` turns the object
          // into a slow dictionary for the rest of the request.
          const forwarded: Record<string, string | string[] | undefined> = {};
          for (const name in headers) if (!strippedHeaders.has(name)) forwarded[name] = headers[name];
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
