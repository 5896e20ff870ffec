import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleEnv } from '../env.js';
import { pagesPrefix } from './pages.js';

/** The session's token. Path /dashboard: browsers never send it to the API, which would not take it anyway. */
export const sessionCookie = 'console_session';
/** The form token of sign-in and invitation pages, before any session exists (a double-submit cookie). */
export const formCookie = 'console_form';

/**
 * Cookies are parsed by @fastify/cookie. It is pinned to 11.1.0, the last release on `cookie` 1.x: later
 * ones take `cookie` 2, which declares Node >=22, and the image runs Node 20. Its parser never throws: a
 * value that is not valid percent-encoding is kept as sent, and a name sent twice keeps its first value
 * (the one with the longest path, RFC 6265 section 5.4). The console signs no cookie, so no secret.
 */
export async function acceptCookies(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie);
}

/** What `newToken` makes: 256 bits in base64url. */
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * The token a console cookie holds, or undefined when there is none or it is not a token the console could
 * have made (hand-made, truncated, mangled): such a cookie counts as absent, so it leads to sign-in or a
 * fresh form token rather than to a database lookup or a form token chosen by someone else.
 */
export function readToken(request: FastifyRequest, name: string): string | undefined {
  const value = request.cookies[name];
  return value !== undefined && tokenPattern.test(value) ? value : undefined;
}

/**
 * `Secure` when people reach the console over HTTPS: the public address says so, or the gateway (or the
 * ingress before it) reports the request came over HTTPS in X-Forwarded-Proto, which fastify trusts
 * from TRUST_PROXY_HOPS proxies.
 */
function isHttps(request: FastifyRequest, env: ConsoleEnv): boolean {
  return env.PUBLIC_BASE_URL.startsWith('https:') || request.protocol === 'https';
}

/** Every console cookie: for /dashboard only, out of scripts' reach, not sent on cross-site posts. */
export function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  env: ConsoleEnv,
  cookie: { name: string; value: string; maxAgeSeconds: number },
): void {
  void reply.setCookie(cookie.name, cookie.value, {
    path: pagesPrefix,
    maxAge: cookie.maxAgeSeconds,
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(request, env),
  });
}

export function clearCookie(request: FastifyRequest, reply: FastifyReply, env: ConsoleEnv, name: string): void {
  setCookie(request, reply, env, { name, value: '', maxAgeSeconds: 0 });
}

/** The cookie of a session just started (sign-in, an accepted invitation, a reset password), kept as long as the session lasts. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, env: ConsoleEnv, token: string): void {
  setCookie(request, reply, env, { name: sessionCookie, value: token, maxAgeSeconds: Math.floor(env.SESSION_ABSOLUTE_TIMEOUT_MS / 1000) });
}
