import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from './network.js';

/** True for an address no fetch of a URL someone else named (webhooks, OAuth client metadata) may reach (kit's SSRF list). Anything that is not an IP address is refused too. */
export function isForbiddenAddress(address: string): boolean {
  return !isPublicAddress(address);
}

export interface UrlPolicy {
  requireHttps: boolean;
  allowPrivateAddresses: boolean;
}

/** The host of a URL as an IP literal (brackets of IPv6 removed), or null for a name. */
function ipLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}

/**
 * Why a URL may not be an endpoint, or null when it may. Names are not resolved here (DNS answers change);
 * the delivery checks every resolved address before it connects.
 */
export function urlProblem(url: string, policy: UrlPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && !policy.requireHttps)) {
    return policy.requireHttps ? 'must use https' : 'must use http or https';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (policy.allowPrivateAddresses) return null;
  const literal = ipLiteral(parsed.hostname);
  if (literal !== null) return isForbiddenAddress(literal) ? 'must not point to a private, loopback or link-local address' : null;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local') || !host.includes('.')) {
    return 'must be a public host name';
  }
  return null;
}

export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
  readonly code = 'address_not_allowed';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request`: resolves the name once, refuses the connection if any address is
 * forbidden, and hands the checked addresses to the socket. The socket connects to exactly what was
 * checked, so a DNS answer that changes between check and connect (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivateAddresses: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    lookup(hostname, { all: true, verbatim: true })
      .then((addresses) => {
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const usable = addresses.filter((entry) => family === 0 || entry.family === family);
        if (usable.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        if (!allowPrivateAddresses && usable.some((entry) => isForbiddenAddress(entry.address))) {
          throw new ForbiddenAddressError(`${hostname} resolves to a private, loopback or link-local address`);
        }
        if (options.all) callback(null, usable);
        else {
          const first = usable[0] as LookupAddress;
          callback(null, first.address, first.family);
        }
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''));
  };
}

/** Checks an IP-literal host before connecting: sockets skip `lookup` for literals. */
export function literalAddressProblem(url: URL, allowPrivateAddresses: boolean): string | null {
  if (allowPrivateAddresses) return null;
  const literal = ipLiteral(url.hostname);
  return literal !== null && isForbiddenAddress(literal) ? `${literal} is a private, loopback or link-local address` : null;
}
