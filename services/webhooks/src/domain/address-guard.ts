import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must never reach: this network, loopback, private ranges, carrier-grade NAT,
 * link-local (cloud metadata lives at 169.254.169.254), documentation and benchmark ranges, multicast and
 * reserved space. IPv4-mapped IPv6 addresses are checked against the IPv4 rules by BlockList itself;
 * NAT64 (64:ff9b::/96) is refused outright because it can reach any IPv4 address.
 */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

/** True for an address no webhook may be sent to. Anything that is not an IP address is refused too. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return forbidden.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
