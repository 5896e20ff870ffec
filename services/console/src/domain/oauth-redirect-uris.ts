import { z } from 'zod';

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI may not be registered, or null: https, or http on a loopback host (RFC 8252), no fragment. */
export function redirectUriProblem(uri: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (parsed.hash || uri.includes('#')) return `${uri} must not have a fragment`;
  if (parsed.username || parsed.password) return `${uri} must not carry credentials`;
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && loopbackHosts.has(parsed.hostname)) return null;
  return `${uri} must use https, or http on a loopback address (127.0.0.1, [::1], localhost)`;
}

export const redirectUrisSchema = z
  .array(z.string().max(2000))
  .min(1, 'redirect_uris needs at least one URI')
  .max(10, 'at most 10 redirect_uris')
  .superRefine((uris, context) => {
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }
  });

/**
 * Exact string match, except that a redirect to a loopback IP literal over http may use any port
 * (RFC 8252 section 7.3: native apps listen on whatever port the system gives them).
 */
export function redirectUriMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  let left: URL;
  let right: URL;
  try {
    left = new URL(registered);
    right = new URL(given);
  } catch {
    return false;
  }
  const loopbackIp = (url: URL) => url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]');
  if (!loopbackIp(left) || !loopbackIp(right) || left.hostname !== right.hostname) return false;
  left.port = '';
  right.port = '';
  return left.href === right.href;
}
