import { Readable } from 'node:stream';
import proxy from '@fastify/http-proxy';
import { ApiError, envelope, type HttpApp, injectUnsampledTrace, propagateTraceTo, signIdentity } from '@voice/kit';
import { consoleDocumentBodyLimitBytes, requestBodyLimitBytes, type ServiceName } from '@voice/proto';
import type { GatewayEnv } from '../env.js';

export interface UpstreamRoute {
  prefix: string;
  upstream: string;
  service: ServiceName;
}

type ApiServiceName = Exclude<ServiceName, 'console'>;

/** Which API service serves which public path prefix. */
export function upstreamRoutes(env: GatewayEnv): UpstreamRoute[] {
  const routes: Array<[ApiServiceName, string[]]> = [
    ['telephony', ['/api/v1/phone', '/api/hooks/twilio', '/api/v1/test_helpers/calls', '/api/v1/test_helpers/sms']],
    ['leads', ['/api/v1/leads', '/api/v1/themes', '/api/v1/workspaces', '/api/v1/sequences', '/api/v1/invoices', '/api/v1/projects']],
    ['recall', ['/api/v1/llm-recall', '/api/v1/knowledge', '/api/v1/marketing-audit', '/api/public/marketing-audit']],
    ['mcp', ['/api/mcp', '/api/v1/approvals', '/api/hooks/telegram', '/api/hooks/slack']],
    ['webhooks', ['/api/v1/webhooks', '/api/v1/test_helpers/webhooks']],
  ];
  const urls: Record<ApiServiceName, string> = {
    telephony: env.TELEPHONY_URL,
    leads: env.LEADS_URL,
    recall: env.RECALL_URL,
    mcp: env.MCP_URL,
    webhooks: env.WEBHOOKS_URL,
  };
  return routes.flatMap(([service, prefixes]) => prefixes.map((prefix) => ({ prefix, service, upstream: urls[service] })));
}

/**
 * The console's pages and files, for people with a browser, and its OAuth authorization server (metadata
 * and `/oauth/*`); not part of the API (nor of its OpenAPI document).
 */
export function consoleRoutes(env: GatewayEnv): UpstreamRoute[] {
  return ['/dashboard', '/oauth', '/.well-known/oauth-authorization-server'].map((prefix) => ({
    prefix,
    service: 'console',
    upstream: env.CONSOLE_URL,
  }));
}

/**
 * Headers a client may not smuggle through: identity is the gateway's to assert. An API service gets no
 * cookie (a console session is never a credential of the API); the console gets its session cookie but no
 * Authorization header (an API key is never a credential of the console).
 */
const identityHeaders = ['x-voice-identity', 'x-voice-signature', 'authorization'];
/**
 * A client's trace headers are read by the gateway (its span continues the client's `traceparent`) and not sent
 * on: with tracing on the proxy adds the gateway's own, and a second `traceparent` beside it would make the
 * pair unreadable to the service; with tracing off, services have no tracing to continue a client's trace in.
 */
const traceHeaders = ['traceparent', 'tracestate', 'baggage'];
const strippedHeaders = new Set([...identityHeaders, ...traceHeaders, 'cookie']);
const consoleStrippedHeaders = new Set([...identityHeaders, ...traceHeaders]);
const isBasicAuth = (value: string | string[] | undefined) => typeof value === 'string' && /^Basic\s/i.test(value);

/**
 * Proxies each prefix to its service with @fastify/http-proxy. The API key stays at the gateway; the
 * service receives the caller's identity in headers signed with the internal secret. A service that is
 * down or slow gets a 503 envelope quickly, not a hang.
 */
export async function registerProxies(app: HttpApp, env: GatewayEnv): Promise<void> {
  for (const route of [...upstreamRoutes(env), ...consoleRoutes(env)]) {
    // The platform's own services get the trace (a `traceparent` on each proxied request) when tracing is on.
    propagateTraceTo(route.upstream);
    const isConsole = route.service === 'console';
    const stripped = isConsole ? consoleStrippedHeaders : strippedHeaders;
    const isOAuth = route.prefix === '/oauth';
    await app.register(async (scope) => {
      // The body is read here, up to the service's limit, before anything is sent on: an oversize body is a
      // 413 from the gateway whatever its framing (declared length or chunked), and a service never stops
      // reading mid-upload (which the proxy could only report as a broken pipe). The service still
      // parses what it receives.
      scope.removeAllContentTypeParsers();
      // Handed on as a stream: reply-from would re-encode a Buffer sent as application/json.
      // The console's limit is its largest form's (a knowledge document); the console holds each route to its own.
      const bodyLimit = isConsole ? consoleDocumentBodyLimitBytes : requestBodyLimitBytes[route.service];
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, Readable.from([body])));
      await scope.register(proxy, {
        upstream: route.upstream,
        // No parser of the proxy's own: the one above is the only one.
        proxyPayloads: false,
        prefix: route.prefix,
        rewritePrefix: route.prefix,
        http2: false,
        // Its two lines per request ("fetching from remote server", "response received") are work on the
        // request path even when the level drops them; failures are still logged by onError below.
        disableRequestLogging: true,
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
            for (const name in headers) if (!stripped.has(name)) forwarded[name] = headers[name];
            // An OAuth client may authenticate itself to the token and revocation endpoints with HTTP Basic
            // (client_secret_basic); that is the client's credential, never an API key, so it goes through.
            if (isOAuth && isBasicAuth(headers.authorization)) forwarded.authorization = headers.authorization;
            forwarded['request-id'] = request.id;
            injectUnsampledTrace(forwarded);
            forwarded['x-forwarded-for'] = request.ip;
            // The console marks its cookie Secure when people came over HTTPS (to the gateway or its ingress).
            if (isConsole) forwarded['x-forwarded-proto'] = request.protocol;
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
            void reply.code(503).headers(apiError.headers).send(envelope(apiError, reply.request.id));
          },
        },
      });
    });
  }
}
