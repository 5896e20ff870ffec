import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a fetch of a URL someone else named may reach (SSRF), decided by ipaddr.js's range
 * table (RFC 6890 and its successors) rather than a list of our own. One rule, shared by every service
 * that fetches user URLs:
 *
 * - IPv4: only `unicast`, so never this network, loopback, private, carrier-grade NAT, link-local (cloud
 *   metadata lives at 169.254.169.254), documentation, benchmark, multicast or reserved space.
 * - IPv6: only the global unicast block 2000::/3 and, within it, only `unicast`. Everything outside it
 *   is refused, which takes every form that carries an IPv4 address in the low 32 bits with it:
 *   IPv4-compatible (`::7f00:1`, how URL parsers write `[::127.0.0.1]`; ipaddr.js reads the dotted
 *   `::a.b.c.d` as IPv4-mapped, below), IPv4-translated (`::ffff:0:a.b.c.d`), NAT64
 *   (`64:ff9b::/96`, `64:ff9b:1::/48`). Inside it, 6to4 (`2002::/16`) and Teredo (`2001::/32`) are refused
 *   outright, since a relay would carry the packet to the IPv4 address they embed, and no receiver needs them.
 * - IPv4-mapped (`::ffff:a.b.c.d`) is the IPv4 address itself on a dual-stack socket: judged as that
 *   address. So is the IPv4 address in an ISATAP interface id (`…:0:5efe:a.b.c.d`).
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? isPublicIpv4(parsed as ipaddr.IPv4) : isPublicIpv6(parsed as ipaddr.IPv6);
}

function isPublicIpv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

const globalUnicast = ipaddr.parseCIDR('2000::/3');

function isPublicIpv6(address: ipaddr.IPv6): boolean {
  if (address.isIPv4MappedAddress()) return isPublicIpv4(address.toIPv4Address());
  if (!address.match(globalUnicast) || address.range() !== 'unicast') return false;
  const isatap = address.parts[5] === 0x5efe && ((address.parts[4] as number) & 0xfdff) === 0;
  return !isatap || isPublicIpv4(ipv4Of(address.parts[6] as number, address.parts[7] as number));
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
}
