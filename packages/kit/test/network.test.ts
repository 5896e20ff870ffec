import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isPublicAddress } from '../src/network.js';

/** [address, why it is refused]; each one a way to name our own network or a tunnel into it. */
const refused: [string, string][] = [
  ['0.0.0.0', 'this network'],
  ['0.1.2.3', 'this network'],
  ['127.0.0.1', 'loopback'],
  ['127.8.9.10', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['224.0.0.1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['100::1', 'discard'],
  ['2001:db8::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['5f00::1', 'segment routing'],
  // IPv4-mapped: the IPv4 address itself on a dual-stack socket.
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'IPv4-mapped metadata, uncompressed'],
  // IPv4-compatible (deprecated): in hex, as URL parsers write it, refused whatever it embeds; written
  // dotted, ipaddr.js reads it as IPv4-mapped, so it is judged by the IPv4 address it names.
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex (how the URL parser writes [::127.0.0.1])'],
  ['::a9fe:a9fe', 'IPv4-compatible metadata'],
  ['::808:808', 'IPv4-compatible, in hex even of a public address'],
  // IPv4-translated (SIIT).
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
  ['::ffff:0:7f00:1', 'IPv4-translated loopback, hex'],
  ['::ffff:0:8.8.8.8', 'IPv4-translated, even of a public address'],
  // NAT64: any IPv4 address behind the translator.
  ['64:ff9b::10.0.0.1', 'NAT64 well-known prefix, private'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 well-known prefix, metadata'],
  ['64:ff9b::8.8.8.8', 'NAT64 well-known prefix, even of a public address'],
  ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix'],
  // 6to4 and Teredo: a relay carries the packet to the embedded IPv4 address.
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:a9fe:a9fe::1', '6to4 of metadata'],
  ['2002:808:808::1', '6to4, even of a public address'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo (client 127.0.0.1 obfuscated)'],
  ['2001::1', 'Teredo'],
  // ISATAP interface ids carry an IPv4 address inside a global prefix.
  ['2a00:1450::5efe:7f00:1', 'ISATAP of loopback'],
  ['2a00:1450::200:5efe:a9fe:a9fe', 'ISATAP of metadata'],
  ['2a00:1450::5efe:10.1.2.3', 'ISATAP of a private address, dotted'],
  // Not addresses at all: nothing that is not an IP address is public.
  ['not-an-ip', 'a name'],
  ['', 'empty'],
  ['16843009', 'an IPv4 address as one number (URL parsers normalise it; here it is not an address)'],
  ['127.1', 'a short IPv4 form'],
  ['[::1]', 'brackets'],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:82b::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '2a00:1450::5efe:8.8.8.8',
];

describe('which addresses are public (SSRF)', () => {
  for (const [address, why] of refused) {
    test(`refuses ${address || '(empty)'}: ${why}`, () => assert.equal(isPublicAddress(address), false));
  }
  test('allows public unicast addresses, also IPv4-mapped and inside ISATAP', () => {
    for (const address of allowed) assert.equal(isPublicAddress(address), true, address);
  });
});
