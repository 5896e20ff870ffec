import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleEnv } from '../env.js';

/** The session's token. Path /dashboard: browsers never send it to the API, which would not take it anyway. */
export const sessionCookie = 'console_session';
/** The form token of sign-in and invitation pages, before any session exists (a double-submit cookie). */
export const formCookie = 'console_form';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return decodeURIComponent(part.slice(separator + 1).trim());
  }
  return undefined;
}

/**
 * `Secure` when people reach the console over HTTPS: the public address says so, or the gateway (or the
 * ingress before it) reports the request came over HTTPS in X-Forwarded-Proto, which fastify trusts
 * from TRUST_PROXY_HOPS proxies.
 */
function isHttps(request: FastifyRequest, env: ConsoleEnv): boolean {
  return env.PUBLIC_BASE_URL.startsWith('https:') || request.protocol === 'https';
}

export function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  env: ConsoleEnv,
  cookie: { name: string; value: string; maxAgeSeconds: number },
): void {
  const attributes = [
    `${cookie.name}=${encodeURIComponent(cookie.value)}`,
    'Path=/dashboard',
    `Max-Age=${cookie.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(isHttps(request, env) ? ['Secure'] : []),
  ];
  void reply.header('set-cookie', [...cookieHeaders(reply), attributes.join('; ')]);
}

export function clearCookie(request: FastifyRequest, reply: FastifyReply, env: ConsoleEnv, name: string): void {
  setCookie(request, reply, env, { name, value: '', maxAgeSeconds: 0 });
}

function cookieHeaders(reply: FastifyReply): string[] {
  const existing = reply.getHeader('set-cookie');
  if (existing === undefined) return [];
  return Array.isArray(existing) ? existing.map(String) : [String(existing)];
}
