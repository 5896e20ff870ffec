import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { clientAddress } from '@voice/kit';
import { fetchPage, isPublicAddress, PageFetchError } from '../src/domain/page-fetch.js';

describe('which addresses may be fetched', () => {
  test('private, loopback, link-local, shared, reserved and multicast addresses are refused', () => {
    const refused = [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '64:ff9b::10.0.0.1',
      'not-an-ip',
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  test('the rate-limit subject is the last X-Forwarded-For entry (the gateway’s), IPv6 per /64', () => {
    assert.equal(clientAddress('203.0.113.9', '10.0.0.2'), '203.0.113.9');
    assert.equal(clientAddress('1.2.3.4, 203.0.113.9', '10.0.0.2'), '203.0.113.9');
    assert.equal(clientAddress('garbage', '10.0.0.2'), '10.0.0.2');
    assert.equal(clientAddress(undefined, '10.0.0.2'), '10.0.0.2');
    assert.equal(clientAddress('2001:db8:aa:bb:1:2:3:4', undefined), '2001:db8:aa:bb::/64');
    assert.equal(clientAddress('2001:db8::1', undefined), '2001:db8:0:0::/64');
  });
});

describe('fetching pages without reaching our own network', () => {
  let server: Server;
  let port: number;
  let hits: string[];
  before(async () => {
    hits = [];
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      if (request.url === '/redirect-loopback') response.writeHead(302, { location: `http://127.0.0.2:${port}/secret` }).end();
      else if (request.url === '/redirect-metadata')
        response.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (request.url === '/redirect-ok') response.writeHead(302, { location: '/page' }).end();
      else if (request.url === '/loop') response.writeHead(302, { location: '/loop' }).end();
      else if (request.url === '/big')
        response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Big</title>${'x'.repeat(50_000)}`);
      else if (request.url === '/slow') setTimeout(() => response.end('late'), 2_000).unref();
      else response.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Page</title></html>');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
  });

  const refusedWith = (reason: string) => (error: unknown) => error instanceof PageFetchError && error.reason === reason;
  const options = { timeoutMs: 1_000, maxBytes: 10_000 };
  // Stands in for "the public internet": this one loopback address, nothing else private.
  const onlyTestServer = { ...options, isAllowedAddress: (address: string) => address === '127.0.0.1' };

  test('loopback, private, metadata and local names are refused before any connection', async () => {
    const before = hits.length;
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://[::1]:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://2130706433:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::127.0.0.1]:${port}/`,
      `http://[::ffff:0:127.0.0.1]:${port}/`,
      `http://[2002:7f00:1::]:${port}/`,
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      `http://localhost:${port}/`,
    ]) {
      await assert.rejects(fetchPage(url, options), refusedWith('blocked_address'), url);
    }
    assert.equal(hits.length, before);
  });

  test('other schemes and credentials in the URL are refused', async () => {
    await assert.rejects(fetchPage('file:///etc/passwd', options), refusedWith('invalid_url'));
    await assert.rejects(fetchPage('ftp://example.com/', options), refusedWith('invalid_url'));
    await assert.rejects(fetchPage('http://user:pass@example.com/', options), refusedWith('invalid_url'));
  });

  test('a name that resolves to a private address is refused (checked at connect time)', async () => {
    const lookup = ((_host: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) =>
      callback(null, [{ address: '10.0.0.5', family: 4 }])) as unknown as typeof import('node:dns').lookup;
    await assert.rejects(fetchPage('http://intranet.example/', { ...options, lookup }), refusedWith('blocked_address'));
    for (const address of ['::7f00:1', '::ffff:0:7f00:1', '2002:7f00:1::', '2001:0:4136:e378:8000:63bf:80ff:fffe']) {
      const rebound = ((_host: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) =>
        callback(null, [{ address, family: 6 }])) as unknown as typeof import('node:dns').lookup;
      await assert.rejects(fetchPage('http://intranet.example/', { ...options, lookup: rebound }), refusedWith('blocked_address'), address);
    }
  });

  test('redirects are followed and each hop is checked: to loopback or metadata is refused', async () => {
    const ok = await fetchPage(`http://127.0.0.1:${port}/redirect-ok`, onlyTestServer);
    assert.equal(ok.finalUrl, `http://127.0.0.1:${port}/page`);
    assert.match(ok.body, /<title>Page<\/title>/);
    await assert.rejects(fetchPage(`http://127.0.0.1:${port}/redirect-loopback`, onlyTestServer), refusedWith('blocked_address'));
    await assert.rejects(fetchPage(`http://127.0.0.1:${port}/redirect-metadata`, onlyTestServer), refusedWith('blocked_address'));
    assert.ok(!hits.includes('/secret'));
    await assert.rejects(fetchPage(`http://127.0.0.1:${port}/loop`, onlyTestServer), refusedWith('too_many_redirects'));
  });

  test('size and time are capped', async () => {
    const big = await fetchPage(`http://127.0.0.1:${port}/big`, onlyTestServer);
    assert.equal(big.truncated, true);
    assert.equal(big.body.length, 10_000);
    await assert.rejects(fetchPage(`http://127.0.0.1:${port}/slow`, { ...onlyTestServer, timeoutMs: 150 }), refusedWith('timeout'));
  });
});
